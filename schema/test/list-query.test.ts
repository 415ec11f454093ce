import { describe, expect, it } from 'vitest'
import { checkCondition, parseDateValue, parseListQuery, QueryProblem, type ListKind } from '../src/list-query.js'

const NOW = Date.UTC(2026, 10, 27, 12, 0, 0)
const parse = (query: string, kind: ListKind = 'objects') => parseListQuery(new URLSearchParams(query), kind, NOW)

/** The parameter a refusal names, or null when the query parses. */
function refused (query: string, kind: ListKind = 'objects'): string | null {
  try {
    parse(query, kind)
    return null
  } catch (err) {
    if (err instanceof QueryProblem) return err.parameter
    throw err
  }
}

describe('filters (decisions §15)', () => {
  it('reads eq by default, an operator when given, and OR groups', () => {
    const q = parse('filter[title]=Hello&filter[id][gte]=3&filter[or][0][tags]=a&filter[or][1][nickname][starts_with]=x')
    expect(q.conditions).toEqual([
      { field: 'title', op: 'eq', values: ['Hello'], group: null },
      { field: 'id', op: 'gte', values: ['3'], group: null },
      { field: 'tags', op: 'eq', values: ['a'], group: 0 },
      { field: 'nickname', op: 'starts_with', values: ['x'], group: 1 },
    ])
  })

  it('normalises dates to epoch ms: a day, an instant with a zone, now and relative now', () => {
    const q = parse('filter[created][gte]=2026-01-02&filter[modified][lt]=2026-01-02T10:00:00%2B02:00&filter[publication_date][lte]=now-2d&filter[start_date][gt]=now%2B1h')
    expect(q.conditions.map((c) => Number(c.values[0]))).toEqual([
      Date.UTC(2026, 0, 2), Date.UTC(2026, 0, 2, 8), NOW - 2 * 86_400_000, NOW + 3_600_000,
    ])
    expect(q.relative_time).toBe(true)
    expect(parse('filter[created][gte]=2026-01-02').relative_time).toBe(false)
  })

  it('splits lists for in, nin and between, and a comma list of types means in', () => {
    expect(parse('filter[id][in]=1,2,3').conditions[0]?.values).toEqual(['1', '2', '3'])
    expect(parse('filter[id][between]=1,9').conditions[0]?.values).toEqual(['1', '9'])
    expect(parse('filter[object_type][eq]=document,event').conditions[0]).toMatchObject({ op: 'in', values: ['document', 'event'] })
    // a title may hold a comma: eq keeps the value whole
    expect(parse('filter[title]=a,b').conditions[0]?.values).toEqual(['a,b'])
  })

  it('takes the families custom_properties.<name> and related.<relation>, inverse names too', () => {
    expect(parse('filter[custom_properties.color][contains]=re').conditions[0]?.field).toBe('custom_properties.color')
    expect(parse('filter[related.attached_to]=welcome').conditions[0]?.field).toBe('related.attached_to')
  })

  it('leaves the two filters of §3, in their own form, to their own reader', () => {
    expect(parse('filter[object_type]=document&filter[query]=x').conditions).toEqual([])
  })

  it.each([
    ['filter[title][gtx]=a', 'filter[title][gtx]'],
    ['filter[colour]=a', 'filter[colour]'],
    ['filter[description][lt]=a', 'filter[description][lt]'],
    ['filter[id]=abc', 'filter[id]'],
    ['filter[id]=0', 'filter[id]'],
    ['filter[created]=2026-01-02T10:00:00', 'filter[created]'],
    ['filter[created]=yesterday', 'filter[created]'],
    ['filter[id][between]=1', 'filter[id][between]'],
    ['filter[id][between]=1,2,3', 'filter[id][between]'],
    ['filter[id][in]=1,,2', 'filter[id][in]'],
    [`filter[id][in]=${Array.from({ length: 101 }, (_, i) => i + 1).join(',')}`, 'filter[id][in]'],
    ['filter[title]=', 'filter[title]'],
    ['filter[start_date][null]=yes', 'filter[start_date][null]'],
    ['filter[object_type][eq]=nothing', 'filter[object_type][eq]'],
    ['filter[or][0][or][1][title]=a', 'filter[or][0][or][1][title]'],
    ['filter[or][0][or]=a', 'filter[or][0][or]'],
    ['filter[or]=a', 'filter[or]'],
    ['filter[query][neq]=a', 'filter[query][neq]'],
    ['filter[related.friends]=1', 'filter[related.friends]'],
    ['filter[custom_properties.]=1', 'filter[custom_properties.]'],
    ['filter[title]]=a', 'filter[title]]'],
  ])('refuses %s naming %s', (query, parameter) => {
    expect(refused(query)).toBe(parameter)
  })

  it('refuses more than 20 conditions, naming the 21st', () => {
    const query = (n: number) => Array.from({ length: n }, (_, i) => `filter[custom_properties.p${i}]=x`).join('&')
    expect(refused(query(20))).toBeNull()
    expect(refused(query(21))).toBe('filter[custom_properties.p20]')
  })

  it('refuses filters on a single read, those of §3 included', () => {
    expect(refused('filter[title]=a', 'single')).toBe('filter[title]')
    expect(refused('filter[query]=a', 'single')).toBe('filter[query]')
  })
})

describe('sort, fields, include, cursor, count', () => {
  it('reads up to three keys with - for descending', () => {
    expect(parse('sort=-publication_date,title').sort).toEqual([{ field: 'publication_date', descending: true }, { field: 'title', descending: false }])
  })

  it.each([
    ['sort=', 'sort'], ['sort=--title', 'sort'], ['sort=title,title', 'sort'], ['sort=id,title,nickname,created', 'sort'],
    ['sort=colour', 'sort'], ['sort=priority', 'sort'], ['sort=relevance', 'sort'],
    ['fields=', 'fields'], ['fields=title,,id', 'fields'], ['fields=colour', 'fields'],
    ['include=', 'include'], ['include=friends', 'include'], ['include=attach.poster.attach', 'include'],
    ['include=attach,poster,seealso,download,attached_to,poster_of', 'include'],
    ['include_limit=0', 'include_limit'], ['include_limit=51', 'include_limit'], ['include_limit=1.5', 'include_limit'],
    ['cursor=', 'cursor'], ['cursor=start&page=2', 'cursor'], ['cursor=a b', 'cursor'],
    ['count=some', 'count'],
  ])('refuses %s naming %s', (query, parameter) => {
    expect(refused(query)).toBe(parameter)
  })

  it('takes priority on tree and relation lists, relevance with a search', () => {
    expect(refused('sort=priority', 'tree')).toBeNull()
    expect(refused('sort=-priority', 'relations')).toBeNull()
    expect(refused('sort=relevance&filter[query]=x')).toBeNull()
    expect(refused('sort=relevance&filter[query][eq]=x')).toBeNull()
  })

  it('refuses sort, cursor and count on a single read; takes fields and include there', () => {
    expect(refused('sort=id', 'single')).toBe('sort')
    expect(refused('cursor=start', 'single')).toBe('cursor')
    expect(refused('count=none', 'single')).toBe('count')
    expect(parse('fields=title&include=attach.poster&include_limit=3', 'single')).toMatchObject({ fields: ['title'], include: [['attach', 'poster']], include_limit: 3 })
  })

  it('reads cursor and count', () => {
    expect(parse('cursor=start&count=none')).toMatchObject({ cursor: 'start', count: 'none' })
  })
})

describe('dates and received conditions', () => {
  it('reads a calendar day as 00:00 UTC and refuses impossible days', () => {
    expect(parseDateValue('2024-02-29', NOW)).toBe(Date.UTC(2024, 1, 29))
    expect(parseDateValue('2023-02-29', NOW)).toBeNull()
  })

  it('checks a condition from another process against the table', () => {
    expect(checkCondition({ field: 'id', op: 'in', values: ['1', '2'], group: null })).toBeNull()
    expect(checkCondition({ field: 'id', op: 'contains', values: ['1'], group: null })).not.toBeNull()
    expect(checkCondition({ field: 'id', op: 'eq', values: ['1', '2'], group: null })).not.toBeNull()
    expect(checkCondition({ field: 'created', op: 'eq', values: ['yesterday'], group: null })).not.toBeNull()
    expect(checkCondition({ field: 'title', op: 'eq', values: ['a'], group: 12 })).not.toBeNull()
    expect(checkCondition({ field: 'nope', op: 'eq', values: ['a'], group: null })).not.toBeNull()
  })
})
