import { describe, expect, it } from 'vitest'
import { DEFAULT_INCLUDE_BUDGET, includeBudgetProblem, includeWorstCase } from '../src/include-budget.js'
import { checkCondition, parseDateValue, parseListQuery, QueryProblem, type IncludeLimits, type ListKind } from '../src/list-query.js'

const NOW = Date.UTC(2026, 10, 27, 12, 0, 0)
const parse = (query: string, kind: ListKind = 'objects', limits?: IncludeLimits) => parseListQuery(new URLSearchParams(query), kind, NOW, limits)

/** The parameter a refusal names, or null when the query parses. */
function refused (query: string, kind: ListKind = 'objects', limits?: IncludeLimits): string | null {
  try {
    parse(query, kind, limits)
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
    ['filter[id]=1.5', 'filter[id]'],
    ['filter[id][gt]=9007199254740992', 'filter[id][gt]'],
    ['filter[id][lt]=-9007199254740992', 'filter[id][lt]'],
    ['filter[id][gte]=1e3', 'filter[id][gte]'],
    ['filter[id][gte]=--5', 'filter[id][gte]'],
    ['filter[id][between]=0,', 'filter[id][between]'],
    ['filter[created][gt]=now%2B999999999d', 'filter[created][gt]'],
    ['filter[or][3][modified][lt]=now-999999999d', 'filter[or][3][modified][lt]'],
    ['filter[object_type][in]=document,', 'filter[object_type][in]'],
    ['filter[tags][nin]=,a', 'filter[tags][nin]'],
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

  it('takes any integer in the id column\'s range as a bound, normalised, never as an object reference', () => {
    expect(parse('filter[id][gt]=0&filter[id][gte]=-5&filter[id][lt]=2147483647&filter[id][between]=-3,007').conditions.map((c) => c.values)).toEqual([
      ['0'], ['-5'], ['2147483647'], ['-3', '7'],
    ])
    expect(parse('filter[id][lte]=9007199254740991&filter[id][gt]=-9007199254740991&filter[id]=-0').conditions.map((c) => c.values[0])).toEqual([
      '9007199254740991', '-9007199254740991', '0',
    ])
    for (const c of parse('filter[id][gt]=0&filter[id][between]=-3,007&filter[id][in]=-1,0,1').conditions) expect(checkCondition(c)).toBeNull()
  })

  it('takes 20 conditions with integer and date bounds', () => {
    const ops = ['gt', 'gte', 'lt', 'lte']
    const query = Array.from({ length: 20 }, (_, i) => i % 2 === 0
      ? `filter[or][${i % 10}][id][${ops[i % 4]}]=${i - 10}`
      : `filter[or][${i % 10}][created][${ops[i % 4]}]=now-${i}d`).join('&')
    const q = parse(query)
    expect(q.conditions).toHaveLength(20)
    for (const c of q.conditions) expect(checkCondition(c)).toBeNull()
  })

  it('refuses a date past the range a Date holds, its own way or relative, and what the service would refuse', () => {
    expect(parseDateValue('now+99999999d', NOW)).toBeNull()
    expect(parseDateValue('now-999999999d', NOW)).toBeNull()
    expect(parseDateValue('now+9999999d', NOW)).toBe(NOW + 9_999_999 * 86_400_000)
    expect(checkCondition({ field: 'created', op: 'gt', values: ['86401796118609120'], group: null })).not.toBeNull()
    expect(checkCondition({ field: 'id', op: 'gt', values: ['9007199254740992'], group: null })).not.toBeNull()
    expect(checkCondition({ field: 'id', op: 'gt', values: ['07'], group: null })).not.toBeNull()
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
    ['sort=title,', 'sort'], ['sort=,title', 'sort'],
    ['fields=', 'fields'], ['fields=title,,id', 'fields'], ['fields=title,', 'fields'], ['fields=colour', 'fields'],
    ['include=', 'include'], ['include=attach,', 'include'], ['include=attach.', 'include'], ['include=.attach', 'include'],
    ['include=friends', 'include'], ['include=attach.poster.attach', 'include'],
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

  it('says an empty list item is one, naming the parameter as sent', () => {
    expect(() => parse('fields=title,')).toThrow(/fields has an empty item/)
    expect(() => parse('filter[or][2][nickname][in]=a,,b')).toThrow(/filter\[or\]\[2\]\[nickname\]\[in\] has an empty item/)
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

describe('include budget (decisions §15)', () => {
  it('is page_size × the product of include_limit over each path\'s steps, summed over the paths', () => {
    expect(includeWorstCase(100, [['seealso', 'seealso']], 50)).toBe(250_000)
    expect(includeWorstCase(20, [['attach'], ['poster', 'poster_of']], 5)).toBe(20 * 5 + 20 * 25)
    expect(includeWorstCase(100, [], 50)).toBe(0)
    expect(includeBudgetProblem(100, [['attach'], ['poster']], 25, DEFAULT_INCLUDE_BUDGET)).toBeNull()
    expect(includeBudgetProblem(100, [['attach'], ['poster']], 26, DEFAULT_INCLUDE_BUDGET)).toMatch(/5200 objects, over the budget of 5000/)
  })

  it('refuses a page past the budget naming include_limit, the default limit and page size included', () => {
    expect(refused('include=seealso.seealso&include_limit=50', 'tree', { pageSize: 100, includeBudget: 5_000 })).toBe('include_limit')
    expect(refused('include=seealso.seealso&include_limit=7', 'tree', { pageSize: 100, includeBudget: 5_000 })).toBeNull()
    expect(refused('include=seealso.seealso&include_limit=8', 'tree', { pageSize: 100, includeBudget: 5_000 })).toBe('include_limit')
    // the default include_limit (5) and page size (20): 5 paths of two steps = 2,500
    expect(refused('include=attach.poster,poster.attach,seealso.seealso,download.attach,attached_to.attach')).toBeNull()
    expect(refused('include=attach.poster,poster.attach', 'objects', { pageSize: 20, includeBudget: 999 })).toBe('include_limit')
  })

  it('counts a single read as a page of one', () => {
    expect(refused('include=seealso.seealso&include_limit=50', 'single')).toBeNull()
    expect(refused('include=seealso.seealso&include_limit=50', 'single', { pageSize: 100, includeBudget: 2_499 })).toBe('include_limit')
  })
})
