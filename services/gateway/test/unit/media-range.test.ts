import { describe, expect, it } from 'vitest'
import { parseRange } from '../../src/http/media/range.js'

describe('parseRange', () => {
  const ranges: Array<[string, ReturnType<typeof parseRange>]> = [
    ['bytes=0-99', { range_start: 0, range_end: 99 }],
    ['bytes=100-', { range_start: 100 }],
    ['bytes=-500', { suffix_length: 500 }],
    ['bytes=-0', { suffix_length: 0 }],
    ['bytes=5-5', { range_start: 5, range_end: 5 }],
    ['BYTES=1-2', { range_start: 1, range_end: 2 }],
    ['  bytes=1-2  ', { range_start: 1, range_end: 2 }],
    ['bytes=999999999999999-', { range_start: 999_999_999_999_999 }],
  ]
  it.each(ranges)('when %j, then one range %j', (header, want) => expect(parseRange(header)).toEqual(want))

  const wholeFile = [
    'bytes=0-1,4-5', 'bytes=-', 'bytes=', 'bytes=9-3', 'items=0-1', 'bytes 0-1', 'bytes=a-b', 'bytes=1-2-3',
    'bytes=0x10-', 'bytes=-1.5', 'bytes=1000000000000000-', 'bytes= 1-2', 'bytes=1 -2', '', 'bytes=\u0661-\u0662',
  ]
  it.each(wholeFile)('when %j, then the whole file', (header) => expect(parseRange(header)).toBeUndefined())

  it('when absent or repeated, then the whole file', () => {
    expect(parseRange(undefined)).toBeUndefined()
    expect(parseRange(['bytes=0-1', 'bytes=2-3'])).toBeUndefined()
  })
})
