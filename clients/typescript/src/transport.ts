import { ApiError, errorOf } from './errors.js'
import { type QueryInput, queryString } from './query.js'
import type { TokenStorage } from './tokens.js'

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>

/** One call: method, path under the base URL, and what it sends. */
export interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  path: string
  query?: QueryInput | undefined
  /** a JSON body */
  json?: unknown
  /** raw bytes, sent with `contentType` */
  bytes?: { body: BodyInit, contentType: string }
  headers?: Record<string, string> | undefined
  /** false: send no access token (login, refresh) */
  token?: false
  /** false: an expired token is the caller's to handle (the call depends on the tokens themselves) */
  retryExpired?: false
  signal?: AbortSignal | undefined
}

export interface Transport {
  /** The parsed JSON of a 2xx answer (undefined for 204); an ApiError otherwise. */
  send<T> (call: Call): Promise<T>
  /** The raw answer of a call, the token retry applied; the caller reads the body. */
  open (call: Call): Promise<Response>
  readonly url: (path: string, query?: QueryInput) => string
  readonly storage: TokenStorage
}

/** Turns an expired access token into a fresh one; false when there is no login to refresh. */
export type Refresher = () => Promise<boolean>

/** Bodies a second attempt can send again: a stream is consumed by the first. */
const replayable = (call: Call) => !(call.bytes && typeof ReadableStream !== 'undefined' && call.bytes.body instanceof ReadableStream)

export function createTransport (options: { baseUrl: string, fetch: FetchLike, storage: TokenStorage, refresh: () => Refresher }): Transport {
  const base = options.baseUrl.replace(/\/+$/, '')
  const url = (path: string, query?: QueryInput) => `${base}${path}${queryString(query)}`

  /** The answer, and the access token it was sent with. */
  async function attempt (call: Call): Promise<{ res: Response, token: string | undefined }> {
    const headers: Record<string, string> = { accept: 'application/json', ...call.headers }
    let body: BodyInit | undefined
    if (call.json !== undefined) { body = JSON.stringify(call.json); headers['content-type'] = 'application/json' }
    if (call.bytes) { body = call.bytes.body; headers['content-type'] = call.bytes.contentType }
    const token = call.token === false ? undefined : (await options.storage.load())?.accessToken
    if (token) headers.authorization = `Bearer ${token}`
    const init: RequestInit & { duplex?: 'half' } = { method: call.method, headers, body, signal: call.signal }
    // a stream body needs half duplex in Node's fetch
    if (!replayable(call)) init.duplex = 'half'
    return { res: await options.fetch(url(call.path, call.query), init), token }
  }

  async function open (call: Call): Promise<Response> {
    const { res: first, token } = await attempt(call)
    if (first.status !== 401 || call.token === false || call.retryExpired === false || !replayable(call)) return first
    const text = await first.text()
    const error = errorOf(first.status, text, url(call.path))
    // decisions §6: only an expired token is worth a refresh; an invalid one stays an error
    if (error.code !== 'TOKEN_EXPIRED') throw error
    // a concurrent call may have refreshed meanwhile: then the new token is tried without another rotation
    const current = (await options.storage.load())?.accessToken
    if ((current === undefined || current === token) && !(await options.refresh()())) throw error
    return (await attempt(call)).res
  }

  async function send<T> (call: Call): Promise<T> {
    const res = await open(call)
    const text = await res.text()
    if (!res.ok) throw errorOf(res.status, text, url(call.path))
    if (res.status === 204 || text === '') return undefined as T
    let body: unknown
    try { body = JSON.parse(text) } catch { body = undefined }
    // every JSON answer of the API is an envelope: anything else came from something in between
    if (typeof body !== 'object' || body === null || !('data' in body)) {
      throw new ApiError({ status: res.status, code: 'UNEXPECTED_RESPONSE', message: 'a 2xx answer that is not the API\'s envelope', details: text.slice(0, 500), url: url(call.path) })
    }
    return body as T
  }

  return { send, open, url, storage: options.storage }
}
