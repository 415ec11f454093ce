import {
  DEFAULT_INCLUDE_BUDGET, isFilterParameter, isObjectType, LEGACY_FILTERS, LIST_QUERY_PARAMETERS, listItems, parseListQuery, QueryProblem,
  SINGLE_QUERY_PARAMETERS, type ListKind, type ListQuery,
} from '@content/api-schema'
import type { v1 } from '@content/protos'
import { HttpError } from './errors.js'
import { parsePaging, type PageRequest } from './formatters/paging.js'
import { canonicalTag } from './formatters/translation.js'
import { utf8Text } from './utf8.js'

export const TOKEN_ONLY = ['access_token']
/** What every list (and single-object read) accepts. */
export const LIST = ['page', 'page_size', 'filter[object_type]', 'filter[query]', 'lang', 'access_token']

/** The single read: no filter (decisions §15), the query grammar's `fields` and `include` beside. */
export const SINGLE = LIST.filter((p) => !LEGACY_FILTERS.includes(p))

const PAGED = new Set<string>(LIST)

/** The paging, filters and query (decisions §15) of a list request, parsed once, as the objects service takes them. */
export interface ListParams { page: PageRequest, filter: ListFilter, query: v1.ListQuery }

/** How the gateway shapes an answer of a request that takes the §15 grammar. */
export interface AnswerShape {
  /** the top-level fields each object keeps (`id` and `object_type` always); null: all */
  fields: string[] | null
  /** paged by cursor: paging carries `next_cursor` */
  cursor: boolean
  /** `total` and `total_pages` are left out */
  uncounted: boolean
  /** a filter said `now`: the answer is not for the read cache */
  relativeTime: boolean
  /** `status=draft` (decisions §16): the answer may hold drafts; never cached, `private, no-store` */
  drafts: boolean
}

/** Every read that takes the §15 grammar also takes `status` (decisions §16); `draft` is its one value. */
export const STATUS = 'status'

export interface CheckedQuery { list?: ListParams, shape?: AnswerShape }

/** What a route of each kind accepts beyond its own list: the §15 parameters (`filter[…]` by pattern). */
export function acceptedNames (accepted: readonly string[], kind: ListKind | undefined): string[] {
  if (kind === undefined) return [...accepted]
  const grammar = kind === 'single' ? SINGLE_QUERY_PARAMETERS : ['filter[<field>]', 'filter[<field>][<operator>]', 'filter[or][<0-9>][<field>][<operator>]', ...LIST_QUERY_PARAMETERS]
  return [...accepted, ...grammar, STATUS]
}

/** A route takes its own list, and with a grammar every §15 name; the grammar refuses (naming it) what its kind does not take. */
function takes (accepted: readonly string[], kind: ListKind | undefined, key: string): boolean {
  if (accepted.includes(key)) return true
  if (kind === undefined || (LEGACY_FILTERS.includes(key) && kind !== 'single')) return false
  return key === STATUS || isFilterParameter(key) || (LIST_QUERY_PARAMETERS as readonly string[]).includes(key)
}

/**
 * A query whose percent-escapes do not decode to UTF-8 is malformed (decisions §2: a 400 before anything
 * else), as a path's are: URLSearchParams turns such bytes into U+FFFD without a word, and a filter would
 * then look for text nobody sent. Only a query whose decoded names or values hold U+FFFD is decoded again
 * (one that really says U+FFFD, `%EF%BF%BD`, passes); a `%` without two hex digits stays as it is. A
 * parameter holding U+0000 is refused too, as write bodies' texts are: one answer on every store.
 */
export function checkQueryText (query: URLSearchParams, rawUrl: string): void {
  let replaced = false
  for (const [key, value] of query) {
    if (key.includes('\u0000') || value.includes('\u0000')) throw new HttpError('INVALID_PARAMETER', `${key}: must not contain U+0000`, { parameter: key })
    if (key.includes('\uFFFD') || value.includes('\uFFFD')) replaced = true
  }
  if (!replaced) return
  const raw = rawUrl.slice(rawUrl.indexOf('?') + 1)
  // Node gives the request target's bytes one character each; an injected test URL may hold more
  if (/[\u0100-\uffff]/.test(raw)) return
  const bytes = Buffer.from(raw.replace(/%[0-9a-fA-F]{2}/g, (hex) => String.fromCharCode(Number.parseInt(hex.slice(1), 16))), 'latin1')
  if (utf8Text(bytes) === null) throw new HttpError('MALFORMED_REQUEST', 'the query string is not valid UTF-8 once percent-decoded')
}

/**
 * Rejects parameters not `accepted` (naming those that are) and malformed paging, filters or §15 query
 * (`kind`: the grammar's list kind; none: the route takes no grammar); answers the paging and filters of a
 * request that takes them, and the shape of its answer.
 */
export function checkQuery (accepted: readonly string[] | undefined, query: URLSearchParams, kind?: ListKind, now = Date.now(), includeBudget = DEFAULT_INCLUDE_BUDGET): CheckedQuery {
  if (!accepted) return {}
  for (const key of new Set(query.keys())) {
    if (!takes(accepted, kind, key)) {
      const names = acceptedNames(accepted, kind)
      throw new HttpError('UNKNOWN_QUERY_PARAMETER', `unknown query parameter "${key}"; accepted: ${names.join(', ')}`, { parameter: key, accepted: names })
    }
    // each parameter has one value: a repeated one would be read from its first copy but echoed from its last
    if (query.getAll(key).length > 1) {
      throw new HttpError('INVALID_PARAMETER', `${key} must be given at most once`, { parameter: key })
    }
  }
  const lang = query.get('lang')
  if (lang !== null && canonicalTag(lang) === null) {
    throw new HttpError('INVALID_PARAMETER', 'lang must be a language tag (BCP 47), such as en or pt-BR', { parameter: 'lang' })
  }
  if (!accepted.some((p) => PAGED.has(p) && p !== 'access_token' && p !== 'lang')) return {}
  const page = parsePaging(query)
  const filter = listFilter(query)
  if (kind === undefined) return { list: { page, filter, query: {} } }
  const parsed = grammar(query, kind, now, page.page_size, includeBudget)
  const drafts = statusOf(query)
  return { list: { page, filter, query: wireQuery(parsed, drafts) }, shape: shapeOf(parsed, drafts) }
}

/** `status=draft`: the caller asks to see the drafts it may write too (the objects service decides which). */
function statusOf (query: URLSearchParams): boolean {
  const status = query.get(STATUS)
  if (status === null) return false
  if (status !== 'draft') throw new HttpError('INVALID_PARAMETER', `status takes one value, draft; got "${status}"`, { parameter: STATUS })
  return true
}

/**
 * Parents and ancestors are short lists the grammar neither filters nor pages: its list-only parameters
 * are refused there, the first one named (fields and include apply).
 */
export function refuseListOnly (query: URLSearchParams, list: string): void {
  for (const key of query.keys()) {
    if ((isFilterParameter(key) && !LEGACY_FILTERS.includes(key)) || key === 'sort' || key === 'cursor' || key === 'count') {
      throw new HttpError('INVALID_PARAMETER', `${key}: ${list} take only fields and include of the query grammar`, { parameter: key })
    }
  }
}

function grammar (query: URLSearchParams, kind: ListKind, now: number, pageSize: number, includeBudget: number): ListQuery {
  return refusedAs400(() => parseListQuery(query, kind, now, { pageSize, includeBudget }))
}

/** The grammar's refusal (a QueryProblem) as the 400 it answers, naming the parameter as sent. */
function refusedAs400<T> (parse: () => T): T {
  try {
    return parse()
  } catch (err) {
    if (err instanceof QueryProblem) throw new HttpError('INVALID_PARAMETER', err.message, { parameter: err.parameter })
    throw err
  }
}

// both built as one literal each: spreading one object into another costs more than a read's query checks
function wireQuery (q: ListQuery, drafts: boolean): v1.ListQuery {
  const wire: v1.ListQuery = {
    conditions: q.conditions.map((c) => ({ field: c.field, op: c.op, values: c.values, ...(c.group === null ? {} : { group: c.group }) })),
    sort: q.sort,
    include: q.include.map((path) => path.join('.')),
    include_limit: q.include_limit,
    count_none: q.count === 'none',
    drafts,
  }
  if (q.cursor !== null) wire.cursor = q.cursor
  return wire
}

const shapeOf = (q: ListQuery, drafts: boolean): AnswerShape =>
  ({ fields: q.fields, cursor: q.cursor !== null, uncounted: q.count === 'none', relativeTime: q.relative_time, drafts })

export interface ListFilter { object_types: string[], query: string }

/** `filter[object_type]=a,b` (known type names; an empty item is a 400, decisions §15) and `filter[query]=text`. */
export function listFilter (query: URLSearchParams): ListFilter {
  const rawTypes = query.get('filter[object_type]')
  const types = rawTypes === null ? [] : refusedAs400(() => listItems('filter[object_type]', rawTypes)).map((t) => t.trim())
  const unknown = types.filter((t) => !isObjectType(t))
  if (unknown.length > 0) {
    throw new HttpError('INVALID_PARAMETER', `filter[object_type] names unknown types: ${unknown.map((t) => `"${t}"`).join(', ')}`, { parameter: 'filter[object_type]' })
  }
  const text = query.get('filter[query]') ?? ''
  if (text.length > 200) throw new HttpError('INVALID_PARAMETER', 'filter[query] must be at most 200 characters', { parameter: 'filter[query]' })
  return { object_types: [...new Set(types)], query: text.trim() }
}
