import { parseIsoDate } from './dates.js'
import { includeBudgetProblem, DEFAULT_INCLUDE_BUDGET } from './include-budget.js'
import { isObjectType } from './object-types.js'
import { ContentObject } from './objects.js'
import { DEFAULT_PAGE_SIZE } from './paging.js'
import { RELATION_NAMES } from './relation-types.js'

/**
 * The query grammar of decisions §15: filters, OR groups, sort, fields, include, cursor and count. One
 * table says which field takes which operators and values; the gateway parses a request's query with it
 * once (parseListQuery), the objects service checks the parsed form it receives against the same table
 * (checkCondition), and the OpenAPI document describes the parameters from it.
 */

export type Operator = 'eq' | 'neq' | 'in' | 'nin' | 'lt' | 'lte' | 'gt' | 'gte' | 'between' | 'null' | 'contains' | 'starts_with'
export const OPERATORS: readonly Operator[] = ['eq', 'neq', 'in', 'nin', 'lt', 'lte', 'gt', 'gte', 'between', 'null', 'contains', 'starts_with']

/** How a field's values are written and compared: `id` is an integer field, compared as a number. */
export type ValueKind = 'id' | 'type' | 'text' | 'date' | 'name' | 'ref' | 'search'

/**
 * The range of an integer filter value (`id`): what every store's id column holds (a 64-bit integer) and a
 * JSON number carries exactly. Any integer in it is a bound (`filter[id][gt]=0`, `gte=-5`), not an object
 * reference: only `parent`, `ancestor` and `related.*` name objects.
 */
export const INTEGER_VALUE_RANGE = { min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER } as const
/** The range of a date filter value, epoch ms: the instants a Date holds (±100,000,000 days around 1970). */
export const DATE_VALUE_RANGE = { min: -8.64e15, max: 8.64e15 } as const

interface FieldRule { kind: ValueKind, ops: readonly Operator[] }

const SET: Operator[] = ['eq', 'neq', 'in', 'nin']
const RANGE: Operator[] = ['lt', 'lte', 'gt', 'gte']
const TEXT_MATCH: Operator[] = ['contains', 'starts_with']

/** The filterable fields (decisions §15) and what each takes; `custom_properties.*` and `related.*` are families. */
export const FILTER_FIELDS: Readonly<Record<string, FieldRule>> = {
  id: { kind: 'id', ops: [...SET, ...RANGE, 'between'] },
  object_type: { kind: 'type', ops: SET },
  nickname: { kind: 'text', ops: [...SET, ...RANGE, ...TEXT_MATCH] },
  title: { kind: 'text', ops: [...SET, ...RANGE, ...TEXT_MATCH] },
  description: { kind: 'text', ops: [...SET, 'null', ...TEXT_MATCH] },
  lang: { kind: 'text', ops: SET },
  created: { kind: 'date', ops: [...SET, ...RANGE, 'between'] },
  modified: { kind: 'date', ops: [...SET, ...RANGE, 'between'] },
  start_date: { kind: 'date', ops: [...SET, ...RANGE, 'between', 'null'] },
  end_date: { kind: 'date', ops: [...SET, ...RANGE, 'between', 'null'] },
  publication_date: { kind: 'date', ops: [...SET, ...RANGE, 'between', 'null'] },
  tags: { kind: 'name', ops: SET },
  categories: { kind: 'name', ops: SET },
  parent: { kind: 'ref', ops: SET },
  ancestor: { kind: 'ref', ops: SET },
  query: { kind: 'search', ops: ['eq'] },
}
const CUSTOM_PROPERTY: FieldRule = { kind: 'text', ops: [...SET, ...RANGE, 'null', ...TEXT_MATCH] }
const RELATED: FieldRule = { kind: 'ref', ops: SET }
const NAME = /^[A-Za-z0-9_-]{1,64}$/

/** The rule of a field name, families included; null when unknown. */
export function fieldRule (field: string): FieldRule | null {
  if (Object.hasOwn(FILTER_FIELDS, field)) return FILTER_FIELDS[field] as FieldRule
  const dot = field.indexOf('.')
  if (dot < 0) return null
  const [family, name] = [field.slice(0, dot), field.slice(dot + 1)]
  if (family === 'custom_properties' && NAME.test(name)) return CUSTOM_PROPERTY
  if (family === 'related' && RELATION_NAMES.has(name)) return RELATED
  return null
}

/**
 * One condition, values normalised: ids as decimal integers, dates as epoch milliseconds (decimal), `null`
 * as `true`/`false`, the rest as sent. `group` null: ANDs with the others; 0–9: the OR group of that index.
 */
export interface Condition { field: string, op: Operator, values: string[], group: number | null }

export const SORT_FIELDS = ['id', 'title', 'nickname', 'created', 'modified', 'start_date', 'end_date', 'publication_date', 'object_type', 'priority', 'relevance'] as const
export type SortField = typeof SORT_FIELDS[number]
export interface SortKey { field: SortField, descending: boolean }

/** Which list a query is for: `priority` sorts only tree and relation lists. */
export type ListKind = 'objects' | 'tree' | 'relations' | 'single'

/** What the grammar checks a query's include against: the page size asked (1 for a single read) and the budget. */
export interface IncludeLimits { pageSize: number, includeBudget: number }
export const DEFAULT_INCLUDE_LIMITS: IncludeLimits = { pageSize: DEFAULT_PAGE_SIZE, includeBudget: DEFAULT_INCLUDE_BUDGET }

/** A request's query, parsed (decisions §15). */
export interface ListQuery {
  conditions: Condition[]
  sort: SortKey[]
  fields: string[] | null
  /** each a path of one or two relation names */
  include: string[][]
  include_limit: number
  /** null: page paging; 'start' or an opaque cursor */
  cursor: string | null
  count: 'exact' | 'none'
  /** a filter named `now`: the answer depends on the time it was asked */
  relative_time: boolean
}

/** The parameters the grammar reads beside `filter[…]` (lists; the single read takes the first three). */
export const LIST_QUERY_PARAMETERS = ['sort', 'fields', 'include', 'include_limit', 'cursor', 'count'] as const
export const SINGLE_QUERY_PARAMETERS = ['fields', 'include', 'include_limit'] as const

export const MAX_CONDITIONS = 20
export const MAX_LIST_VALUES = 100
export const MAX_SORT_KEYS = 3
export const MAX_INCLUDES = 5
export const DEFAULT_INCLUDE_LIMIT = 5
export const MAX_INCLUDE_LIMIT = 50
const MAX_VALUE_LENGTH = 500
const MAX_CURSOR_LENGTH = 2000

/** A refused parameter: the exact name as sent, and why. */
export class QueryProblem extends Error {
  constructor (readonly parameter: string, message: string) { super(message) }
}

/** The top-level fields `fields` may keep: those of an answer's object (spec 2.3, §12). */
export const OBJECT_FIELDS: readonly string[] = Object.keys(ContentObject.properties)

/** The two filters of decisions §3, in the form it gave them: parsed by their own rules. */
export const LEGACY_FILTERS: readonly string[] = ['filter[object_type]', 'filter[query]']

const FILTER_KEY = /^filter\[([^[\]]*)\](?:\[([^[\]]*)\])?$/
const OR_KEY = /^filter\[or\]\[([0-9])\]\[([^[\]]*)\](?:\[([^[\]]*)\])?$/

export const isFilterParameter = (key: string): boolean => key.startsWith('filter[')

/**
 * Parses the §15 parameters of a query (`page`, `lang` and the others are read elsewhere); throws a
 * QueryProblem naming the first refused parameter. `filter[object_type]` and `filter[query]` as
 * decisions §3 wrote them (LEGACY_FILTERS) are read as they always were, elsewhere; their operator forms
 * and OR-group uses are conditions. `now` is the instant `now` means; `limits` bound what include may add
 * (the single read's page is its one object).
 */
export function parseListQuery (query: URLSearchParams, kind: ListKind, now: number, limits: IncludeLimits = DEFAULT_INCLUDE_LIMITS): ListQuery {
  const out: ListQuery = { conditions: [], sort: [], fields: null, include: [], include_limit: DEFAULT_INCLUDE_LIMIT, cursor: null, count: 'exact', relative_time: false }
  for (const [key, value] of query) {
    // a single object takes no filter at all, those of §3 included
    if (LEGACY_FILTERS.includes(key) && kind !== 'single') continue
    if (isFilterParameter(key)) {
      if (kind === 'single') throw new QueryProblem(key, `${key}: a single object takes no filters`)
      out.conditions.push(parseFilter(key, value, now, out))
      if (out.conditions.length > MAX_CONDITIONS) throw new QueryProblem(key, `at most ${MAX_CONDITIONS} filter conditions in all`)
      continue
    }
    switch (key) {
      case 'sort': out.sort = parseSort(value, kind); break
      case 'fields': out.fields = parseFields(value); break
      case 'include': out.include = parseInclude(value); break
      case 'include_limit': out.include_limit = parseIncludeLimit(value); break
      case 'cursor': out.cursor = parseCursor(value, kind, query); break
      case 'count': out.count = parseCount(value, kind); break
    }
  }
  const searched = (query.get('filter[query]') ?? '').trim() !== '' || out.conditions.some((c) => c.field === 'query' && c.group === null)
  if (out.sort.some((k) => k.field === 'relevance') && !searched) {
    throw new QueryProblem('sort', 'sort=relevance needs filter[query]')
  }
  const budget = includeBudgetProblem(kind === 'single' ? 1 : limits.pageSize, out.include, out.include_limit, limits.includeBudget)
  if (budget !== null) throw new QueryProblem('include_limit', budget)
  return out
}

function parseFilter (key: string, value: string, now: number, out: ListQuery): Condition {
  let group: number | null = null
  let field: string
  let op: string | undefined
  const or = OR_KEY.exec(key)
  if (or) {
    [group, field, op] = [Number(or[1]), or[2] as string, or[3]]
    if (field === 'or') throw new QueryProblem(key, `${key}: an OR group cannot hold another`)
  } else {
    const m = FILTER_KEY.exec(key)
    if (!m || m[1] === 'or') throw new QueryProblem(key, `${key} is not a filter: use filter[<field>], filter[<field>][<operator>] or filter[or][<0-9>][<field>][<operator>]`)
    ;[field, op] = [m[1] as string, m[2]]
  }
  const rule = fieldRule(field)
  if (rule === null) throw new QueryProblem(key, `${key}: unknown field "${field}"`)
  const operator = (op ?? 'eq') as Operator
  if (!OPERATORS.includes(operator)) throw new QueryProblem(key, `${key}: unknown operator "${op}"; operators: ${OPERATORS.join(', ')}`)
  if (!rule.ops.includes(operator)) throw new QueryProblem(key, `${key}: ${field} takes ${rule.ops.join(', ')}`)
  // a comma list of types has always meant `in`
  const effective: Operator = field === 'object_type' && operator === 'eq' && value.includes(',') ? 'in' : operator
  const values = parseValues(key, rule.kind, effective, value, now)
  if (values.relative) out.relative_time = true
  return { field, op: effective, values: values.list, group }
}

function parseValues (key: string, kind: ValueKind, op: Operator, raw: string, now: number): { list: string[], relative: boolean } {
  if (op === 'null') {
    if (raw !== 'true' && raw !== 'false') throw new QueryProblem(key, `${key} must be true or false`)
    return { list: [raw], relative: false }
  }
  const multi = op === 'in' || op === 'nin' || op === 'between'
  const items = multi ? listItems(key, raw) : [raw]
  if (op === 'between' && items.length !== 2) throw new QueryProblem(key, `${key} takes exactly two comma-separated values`)
  if (items.length > MAX_LIST_VALUES) throw new QueryProblem(key, `${key} takes at most ${MAX_LIST_VALUES} values`)
  let relative = false
  const list = items.map((item) => {
    if (item === '') throw new QueryProblem(key, `${key} has an empty value`)
    if (item.length > MAX_VALUE_LENGTH) throw new QueryProblem(key, `${key}: a value is longer than ${MAX_VALUE_LENGTH} characters`)
    const parsed = parseValue(kind, item, now)
    if (parsed === null) throw new QueryProblem(key, `${key}: "${item}" is not ${VALUE_NAMES[kind]}`)
    if (kind === 'date' && item.startsWith('now')) relative = true
    return parsed
  })
  return { list, relative }
}

const VALUE_NAMES: Record<ValueKind, string> = {
  id: `an integer from ${INTEGER_VALUE_RANGE.min} to ${INTEGER_VALUE_RANGE.max}`,
  type: 'an object type',
  text: 'a text',
  date: 'a date (YYYY-MM-DD, ISO 8601 with Z or an offset, now, now-<n><s|m|h|d> or now+<n><s|m|h|d>) within ±100,000,000 days of 1970',
  name: 'a name',
  ref: 'an object id or nickname',
  search: 'a search text of at most 200 characters',
}

const INTEGER = /^-?[0-9]{1,16}$/
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/
const RELATIVE = /^now(?:([+-])([0-9]{1,9})([smhd]))?$/
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** One value in its normalised form; null when it does not parse. */
export function parseValue (kind: ValueKind, value: string, now: number): string | null {
  switch (kind) {
    case 'id': return integerValue(value)
    case 'type': return isObjectType(value) ? value : null
    case 'date': {
      const ms = parseDateValue(value, now)
      return ms === null ? null : String(ms)
    }
    case 'search': return value.length <= 200 && value.trim() !== '' ? value : null
    default: return value
  }
}

/** An integer value in its canonical decimal form (`007` → `7`, `-0` → `0`); null when not one or out of range. */
function integerValue (value: string): string | null {
  if (!INTEGER.test(value)) return null
  const n = Number(value)
  return n >= INTEGER_VALUE_RANGE.min && n <= INTEGER_VALUE_RANGE.max ? String(n) : null
}

/** A date filter value → epoch ms: `YYYY-MM-DD` (00:00 UTC), ISO 8601 with a zone, or `now±<n><unit>`; null past DATE_VALUE_RANGE. */
export function parseDateValue (value: string, now: number): number | null {
  const ms = dateMs(value, now)
  return ms !== null && ms >= DATE_VALUE_RANGE.min && ms <= DATE_VALUE_RANGE.max ? ms : null
}

function dateMs (value: string, now: number): number | null {
  const rel = RELATIVE.exec(value)
  if (rel) {
    if (rel[1] === undefined) return now
    const span = Number(rel[2]) * UNIT_MS[rel[3] as keyof typeof UNIT_MS]
    return rel[1] === '+' ? now + span : now - span
  }
  const day = DAY.exec(value)
  if (day) return parseIsoDate(`${value}T00:00:00Z`)
  return parseIsoDate(value)
}

/** The items of a comma list; an empty one (`a,,b`, `a,`) is refused naming the parameter (decisions §15). */
export function listItems (parameter: string, value: string): string[] {
  const items = value.split(',')
  if (items.some((item) => item === '')) {
    throw new QueryProblem(parameter, value === '' ? `${parameter} is empty` : `${parameter} has an empty item ("${value}")`)
  }
  return items
}

function parseSort (value: string, kind: ListKind): SortKey[] {
  if (kind === 'single') throw new QueryProblem('sort', 'a single object takes no sort')
  const keys = listItems('sort', value)
  if (keys.length > MAX_SORT_KEYS) throw new QueryProblem('sort', `sort takes at most ${MAX_SORT_KEYS} keys`)
  const seen = new Set<string>()
  return keys.map((raw) => {
    const descending = raw.startsWith('-')
    const field = descending ? raw.slice(1) : raw
    if (!(SORT_FIELDS as readonly string[]).includes(field)) {
      throw new QueryProblem('sort', `sort: unknown key "${raw}"; keys: ${SORT_FIELDS.join(', ')} (- for descending)`)
    }
    if (seen.has(field)) throw new QueryProblem('sort', `sort: "${field}" is given twice`)
    if (field === 'priority' && kind === 'objects') throw new QueryProblem('sort', 'sort: priority orders only tree and relation lists')
    seen.add(field)
    return { field: field as SortField, descending }
  })
}

function parseFields (value: string): string[] {
  const names = listItems('fields', value)
  for (const name of names) {
    if (!OBJECT_FIELDS.includes(name)) throw new QueryProblem('fields', `fields: unknown field "${name}"`)
  }
  return [...new Set(names)]
}

function parseInclude (value: string): string[][] {
  const paths = listItems('include', value)
  if (paths.length > MAX_INCLUDES) throw new QueryProblem('include', `include takes at most ${MAX_INCLUDES} relations`)
  return paths.map((path) => {
    const steps = path.split('.')
    if (steps.includes('')) throw new QueryProblem('include', `include: "${path}" has an empty step`)
    if (steps.length > 2) throw new QueryProblem('include', `include: "${path}" is deeper than two relations`)
    for (const step of steps) {
      if (!RELATION_NAMES.has(step)) throw new QueryProblem('include', `include: unknown relation "${step}"`)
    }
    return steps
  })
}

function parseIncludeLimit (value: string): number {
  const n = /^[0-9]{1,3}$/.test(value) ? Number(value) : Number.NaN
  if (!(n >= 1 && n <= MAX_INCLUDE_LIMIT)) throw new QueryProblem('include_limit', `include_limit must be an integer from 1 to ${MAX_INCLUDE_LIMIT}`)
  return n
}

function parseCursor (value: string, kind: ListKind, query: URLSearchParams): string {
  if (kind === 'single') throw new QueryProblem('cursor', 'a single object takes no cursor')
  if (query.has('page')) throw new QueryProblem('cursor', 'cursor and page exclude each other')
  if (value === '' || value.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_.-]+$/.test(value)) throw new QueryProblem('cursor', 'cursor is not a cursor of this list')
  return value
}

function parseCount (value: string, kind: ListKind): 'exact' | 'none' {
  if (kind === 'single') throw new QueryProblem('count', 'a single object takes no count')
  if (value !== 'exact' && value !== 'none') throw new QueryProblem('count', 'count must be exact or none')
  return value
}

/**
 * Checks a parsed condition received from another process against the table (values already
 * normalised); null when sound, else why not.
 */
export function checkCondition (c: Condition): string | null {
  const rule = fieldRule(c.field)
  if (rule === null) return `unknown field "${c.field}"`
  if (!rule.ops.includes(c.op)) return `${c.field} does not take ${c.op}`
  if (c.group !== null && !(Number.isInteger(c.group) && c.group >= 0 && c.group <= 9)) return 'an OR group is 0–9'
  const n = c.values.length
  if (n === 0 || n > MAX_LIST_VALUES || ((c.op !== 'in' && c.op !== 'nin' && c.op !== 'between') && n !== 1) || (c.op === 'between' && n !== 2)) return `${c.field} ${c.op}: wrong number of values`
  for (const v of c.values) {
    if (c.op === 'null' ? v !== 'true' && v !== 'false' : !normalised(rule.kind, v)) return `${c.field}: "${v}" is not a normalised value`
  }
  return null
}

function normalised (kind: ValueKind, v: string): boolean {
  if (v === '' || v.length > MAX_VALUE_LENGTH) return false
  if (kind === 'id') return integerValue(v) === v
  if (kind === 'type') return isObjectType(v)
  if (kind === 'date') return INTEGER.test(v) && Number(v) >= DATE_VALUE_RANGE.min && Number(v) <= DATE_VALUE_RANGE.max
  return true
}
