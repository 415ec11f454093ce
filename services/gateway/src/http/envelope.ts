import type { Envelope, ErrorBody, ErrorCode, Paging } from '@content/api-schema'
import type { ErrorDetails } from '@content/platform'

/** What the envelope and error bodies need to know about a request. */
export interface RequestInfo {
  /** lower-case method */
  method: string
  /** scheme://host, honouring X-Forwarded-* only when trustProxy is on (fastify does that) */
  origin: string
  /** absolute request URL without its query string */
  url: string
  query: URLSearchParams
}

export type { Envelope, ErrorBody, Paging } from '@content/api-schema'

/** The query parameters as raw strings (last one wins), never `access_token`; `[]` when none. */
export function echoParams (query: URLSearchParams): Record<string, string> | [] {
  const params: Record<string, string> = {}
  for (const [key, value] of query) if (key !== 'access_token') params[key] = value
  return Object.keys(params).length === 0 ? [] : params
}

export function envelope<T> (info: RequestInfo, api: string, data: T, paging?: Paging): Envelope<T> {
  const body: Envelope<T> = { api, data, method: info.method, params: echoParams(info.query), url: info.url }
  if (paging) body.paging = paging
  return body
}

/** `moreInfo`: the URL of the errors page, to which the code is added as the anchor (null: none known). */
export function errorBody (url: string, status: number, code: string, message: string, details: ErrorDetails = null, errorsPage: string | null = null): ErrorBody {
  // every code is one of ERROR_CODES: the system tests check each error they receive against that list
  return { error: { status, code: code as ErrorCode, message, details, more_info: errorsPage === null ? null : `${errorsPage}#${code}`, url } }
}

/** Splits a raw request URL into the info above. */
export function requestInfo (method: string, origin: string, rawUrl: string): RequestInfo {
  const q = rawUrl.indexOf('?')
  const path = q === -1 ? rawUrl : rawUrl.slice(0, q)
  return { method: method.toLowerCase(), origin, url: origin + path, query: new URLSearchParams(q === -1 ? '' : rawUrl.slice(q + 1)) }
}
