import { describe, expect, it } from 'vitest'
import { bodyData, childItems, childPriority, relationItems, relationReplacement } from '../../src/core/write-body.js'

const problems = (fn: () => unknown): Record<string, string> => {
  try {
    fn()
  } catch (err) {
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'VALIDATION_FAILED' })
    return (err as { details: Record<string, string> }).details
  }
  throw new Error('expected VALIDATION_FAILED')
}

describe('relation items', () => {
  it('when one item, then a list of one; params become JSON text', () => {
    expect(relationItems({ related_id: 4, priority: 2, params: { a: 1 } })).toEqual([{ related_id: 4, priority: 2, params: '{"a":1}' }])
  })
  it('when an array, then each item; absent priority/params are null', () => {
    expect(relationItems([{ related_id: 4 }, { related_id: 5, params: null }])).toEqual([{ related_id: 4, priority: null, params: null }, { related_id: 5, priority: null, params: null }])
  })
  it('when items are malformed, then every field is named', () => {
    expect(problems(() => relationItems([{ related_id: '4' }, { related_id: 0, priority: -1, params: [1], extra: 1 }, 7]))).toEqual({
      'data[0].related_id': expect.any(String), 'data[1].related_id': expect.any(String), 'data[1].priority': expect.any(String),
      'data[1].params': expect.any(String), 'data[1].extra': expect.any(String), 'data[2]': expect.any(String),
    })
  })
  it('when empty, then 400', () => {
    expect(problems(() => relationItems([]))).toHaveProperty('data')
  })
  it('when items are malformed, then the message names the fields in order: items that are no objects, then each item\'s unknown fields, then its refused ones', () => {
    expect(() => relationItems([{ params: 'x', related_id: 0, priority: 1.5, zz: 1 }, 'x'])).toThrow(expect.objectContaining({
      message: 'invalid fields: data[1], data[0].zz, data[0].related_id, data[0].priority, data[0].params',
      details: {
        'data[1]': 'must be an object', 'data[0].zz': 'is not a known field', 'data[0].related_id': 'is required and must be a positive integer',
        'data[0].priority': 'must be a non-negative integer', 'data[0].params': 'must be an object',
      },
    }))
    expect(problems(() => relationItems(Array.from({ length: 1001 }, () => ({ related_id: 1 }))))).toEqual({ data: 'must hold at most 1000 items' })
  })
})

describe('child items', () => {
  it('accepts one or many', () => {
    expect(childItems({ child_id: 3 })).toEqual([{ child_id: 3, priority: null }])
    expect(childItems([{ child_id: 3, priority: 1 }, { child_id: 9 }])).toEqual([{ child_id: 3, priority: 1 }, { child_id: 9, priority: null }])
  })
  it('names bad fields', () => {
    expect(problems(() => childItems({ child_id: 1.5, priority: 'x' }))).toEqual({ 'data.child_id': expect.any(String), 'data.priority': expect.any(String) })
  })
  it('PUT child needs an integer priority', () => {
    expect(childPriority({ priority: 4 })).toBe(4)
    expect(problems(() => childPriority({}))).toHaveProperty(['data.priority'])
    expect(problems(() => childPriority({ priority: 4, child_id: 9 }))).toEqual({ 'data.child_id': 'is not a known field' })
  })
})

describe('relation replacement', () => {
  it('takes params and/or priority; the one left out becomes null', () => {
    expect(relationReplacement({ priority: 2 })).toEqual({ priority: 2, params: null })
    expect(relationReplacement({ params: { a: 1 } })).toEqual({ priority: null, params: '{"a":1}' })
  })
  it('needs at least one', () => {
    expect(problems(() => relationReplacement({}))).toHaveProperty('data')
    expect(problems(() => relationReplacement({ params: 'x' }))).toHaveProperty(['data.params'])
    expect(problems(() => relationReplacement({ priority: null, extra: 1 }))).toEqual({ 'data.extra': 'is not a known field', data: 'needs params or priority' })
  })
})

describe('body data', () => {
  it.each([
    ['no body', undefined], ['a body without data', '{"title":"x"}'], ['an array body', '[{"data":1}]'], ['a string body', '"data"'], ['a null body', 'null'],
  ])('when there is %s, then MISSING_PARAMETER naming data', (_label, body) => {
    expect(() => bodyData(body)).toThrow(expect.objectContaining({ reason: 'MISSING_PARAMETER', details: { parameter: 'data' } }))
  })
  it('when data is any JSON value, then that value', () => {
    expect(bodyData('{"data":null}')).toBeNull()
    expect(bodyData(' {"data": [{"child_id":3}], "other": 1} ')).toEqual([{ child_id: 3 }])
  })
  it('when the body is not JSON or nests too deep (a call that did not come through the gateway), then the gateway\'s 400s', () => {
    expect(() => bodyData('{"data":')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', reason: 'MALFORMED_JSON' }))
    expect(() => bodyData(`{"data":${'['.repeat(100)}${']'.repeat(100)}}`)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', reason: 'JSON_TOO_DEEP' }))
  })
})
