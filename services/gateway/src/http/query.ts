import { isObjectType } from '@content/api-schema'
import { HttpError } from './errors.js'
import { parsePaging, type PageRequest } from './formatters/paging.js'
import { canonicalTag } from './formatters/translation.js'

export const TOKEN_ONLY = ['access_token']
/** What every list (and single-object read) accepts. */
export const LIST = ['page', 'page_size', 'filter[object_type]', 'filter[query]', 'lang', 'access_token']

const PAGED = new Set<string>(LIST)

/** The paging and filters of a list request, parsed once. */
export interface ListParams { page: PageRequest, filter: ListFilter }

/**
 * Rejects parameters not `accepted` (naming those that are) and malformed paging or filters (no list:
 * not checked); answers the paging and filters of a request that takes them.
 */
export function checkQuery (accepted: readonly string[] | undefined, query: URLSearchParams): ListParams | undefined {
  if (!accepted) return undefined
  for (const key of new Set(query.keys())) {
    if (!accepted.includes(key)) {
      throw new HttpError('UNKNOWN_QUERY_PARAMETER', `unknown query parameter "${key}"; accepted: ${accepted.join(', ')}`, { parameter: key, accepted: [...accepted] })
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
  if (!accepted.some((p) => PAGED.has(p) && p !== 'access_token' && p !== 'lang')) return undefined
  return { page: parsePaging(query), filter: listFilter(query) }
}

export interface ListFilter { object_types: string[], query: string }

/** `filter[object_type]=a,b` (known type names) and `filter[query]=text`. */
export function listFilter (query: URLSearchParams): ListFilter {
  const rawTypes = query.get('filter[object_type]')
  const types = rawTypes === null ? [] : rawTypes.split(',').map((t) => t.trim()).filter(Boolean)
  const unknown = types.filter((t) => !isObjectType(t))
  if (unknown.length > 0 || (rawTypes !== null && types.length === 0)) {
    throw new HttpError('INVALID_PARAMETER', `filter[object_type] names unknown types: ${unknown.join(', ') || '(empty)'}`, { parameter: 'filter[object_type]' })
  }
  const text = query.get('filter[query]') ?? ''
  if (text.length > 200) throw new HttpError('INVALID_PARAMETER', 'filter[query] must be at most 200 characters', { parameter: 'filter[query]' })
  return { object_types: [...new Set(types)], query: text.trim() }
}
