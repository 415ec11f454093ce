import { describe, expect, it } from 'vitest'
import { HttpError } from '../../src/http/errors.js'
import { parseLiveParams } from '../../src/live/live-params.js'
import { formatPosition, parsePosition } from '../../src/live/live-frames.js'

const parse = (query: string) => parseLiveParams(new URLSearchParams(query))

function refusal (query: string): { code: string, parameter: unknown } {
  try {
    parse(query)
  } catch (err) {
    if (!(err instanceof HttpError)) throw err
    return { code: err.reason, parameter: (err.details as { parameter?: unknown } | null)?.parameter }
  }
  throw new Error(`${query} was accepted`)
}

describe('parseLiveParams (decisions §17)', () => {
  it('takes every parameter of /changes', () => {
    const p = parse('filter[object_type]=document,section&filter[parent]=12&filter[ancestor]=1&events=object.created,child.added&status=draft&after=3.s&ticket=abcdefghijklmnopqrstuv')
    expect([...p.objectTypes]).toEqual(['document', 'section'])
    expect([p.parent, p.ancestor, p.drafts, p.after, p.ticket]).toEqual(['12', '1', true, '3.s', 'abcdefghijklmnopqrstuv'])
    expect([...p.events]).toEqual(['object.created', 'child.added'])
  })

  it('takes a reference as §15 does: an id or a nickname, kept as sent until it is resolved for the caller', () => {
    expect([parse('filter[parent]=news').parent, parse('filter[ancestor]=about-us').ancestor, parse('filter[parent]=9007199254740991').parent])
      .toEqual(['news', 'about-us', '9007199254740991'])
  })

  it('takes any after as sent: one that is not a position is a reset when the stream opens (decisions §17), never a 400', () => {
    for (const after of ['', 'garbage', '1'.repeat(2_000), '%E2%9C%93']) expect(parse(`after=${after}`).after).toBe(decodeURIComponent(after))
  })

  it('nothing given: every event, no filter', () => {
    const p = parse('')
    expect([p.objectTypes.size, p.events.size, p.parent, p.ancestor, p.drafts, p.after, p.ticket]).toEqual([0, 0, null, null, false, null, null])
  })

  it.each([
    ['page=2', 'page'], ['fields=id', 'fields'], ['filter[title]=x', 'filter[title]'], ['events=object.exploded', 'events'], ['events=', 'events'],
    ['events=object.created,', 'events'], ['filter[object_type]=nope', 'filter[object_type]'], ['filter[parent]=', 'filter[parent]'],
    ['filter[parent]=news,archive', 'filter[parent]'], [`filter[parent]=${'n'.repeat(256)}`, 'filter[parent]'], ['filter[ancestor]=0', 'filter[ancestor]'],
    ['filter[ancestor]=123456789012345678', 'filter[ancestor]'],
    ['status=on', 'status'], ['status=', 'status'], ['after=1&after=2', 'after'],
    ['status=draft&status=draft', 'status'], ['Events=object.created', 'Events'],
  ])('%s is a 400 INVALID_PARAMETER naming %s', (query, parameter) => {
    expect(refusal(query)).toEqual({ code: 'INVALID_PARAMETER', parameter })
  })
})

describe('positions', () => {
  it('a position written is read back', () => {
    const p = { storeId: '5d0c7c9e-8c1f-4b9a-a2a4-0e3c1f7d2b11', seq: 42 }
    expect(parsePosition(formatPosition(p))).toEqual(p)
  })

  it.each(['', '42', 'x.store', '-1.store', '1.2.3', '01.store', '99999999999999999.store', '1.sto re', `1.${'a'.repeat(65)}`])('%j is no position', (text) => {
    expect(parsePosition(text)).toBeNull()
  })
})
