import { describe, expect, it } from 'vitest'
import { rangeApplies, resolveRange, type RangeRequest } from '../../src/core/byte-range.js'

describe('resolveRange', () => {
  it.each<[string, RangeRequest, number, ReturnType<typeof resolveRange>]>([
    ['no range', {}, 100, { kind: 'full' }],
    ['bytes=0-9', { range_start: 0, range_end: 9 }, 100, { kind: 'partial', start: 0, end: 9 }],
    ['bytes=10-', { range_start: 10 }, 100, { kind: 'partial', start: 10, end: 99 }],
    ['bytes=90-200 (end past the file)', { range_start: 90, range_end: 200 }, 100, { kind: 'partial', start: 90, end: 99 }],
    ['bytes=99-99', { range_start: 99, range_end: 99 }, 100, { kind: 'partial', start: 99, end: 99 }],
    ['bytes=-10 (suffix)', { suffix_length: 10 }, 100, { kind: 'partial', start: 90, end: 99 }],
    ['bytes=-500 (suffix longer than the file)', { suffix_length: 500 }, 100, { kind: 'partial', start: 0, end: 99 }],
    ['bytes=100- (start at the end)', { range_start: 100 }, 100, { kind: 'unsatisfiable' }],
    ['bytes=500-600', { range_start: 500, range_end: 600 }, 100, { kind: 'unsatisfiable' }],
    ['bytes=-0', { suffix_length: 0 }, 100, { kind: 'unsatisfiable' }],
    ['bytes=9-5 (end before start: ignored)', { range_start: 9, range_end: 5 }, 100, { kind: 'full' }],
    ['a negative start (ignored)', { range_start: -5 }, 100, { kind: 'full' }],
    ['a fractional start (ignored)', { range_start: 1.5 }, 100, { kind: 'full' }],
    ['a negative suffix (ignored)', { suffix_length: -5 }, 100, { kind: 'full' }],
    ['both forms at once (ignored)', { range_start: 1, suffix_length: 5 }, 100, { kind: 'full' }],
    ['an end alone (ignored)', { range_end: 5 }, 100, { kind: 'full' }],
  ])('when the range is %s, then the answer follows', (_label, req, size, answer) => {
    expect(resolveRange(req, size)).toEqual(answer)
  })
})

describe('rangeApplies (If-Range)', () => {
  it.each([
    ['', true], ['"abc"', true], ['"abd"', false], ['W/"abc"', false], ['Wed, 21 Oct 2015 07:28:00 GMT', false],
  ])('when If-Range is %j and the ETag "abc", then the range applies: %s', (ifRange, applies) => {
    expect(rangeApplies(ifRange, '"abc"')).toBe(applies)
  })
})
