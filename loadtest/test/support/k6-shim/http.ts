/** Stand-in for `k6/http`: synchronous requests answered by a handler the test installs. */
export interface FakeRequest { method: string, url: string, body: string | null, headers: Record<string, string>, tags: Record<string, string> }
export interface FakeReply { status: number, body?: unknown, headers?: Record<string, string> }
type Params = { headers?: Record<string, string>, tags?: Record<string, string> } | null | undefined

export const calls: FakeRequest[] = []
let handler: (req: FakeRequest) => FakeReply = () => ({ status: 599 })

export function serve (h: (req: FakeRequest) => FakeReply): void {
  handler = h
  calls.length = 0
}

export function request (method: string, url: string, body?: string | ArrayBuffer | null, params?: Params) {
  const req: FakeRequest = { method, url, body: typeof body === 'string' ? body : body ? `<${body.byteLength} bytes>` : null, headers: params?.headers ?? {}, tags: params?.tags ?? {} }
  calls.push(req)
  const reply = handler(req)
  const text = reply.body === undefined ? null : JSON.stringify(reply.body)
  return { status: reply.status, body: text, headers: reply.headers ?? {}, json: () => JSON.parse(text ?? 'null') as unknown }
}

export const get = (url: string, params?: Params) => request('GET', url, null, params)
export const post = (url: string, body?: string | null, params?: Params) => request('POST', url, body, params)
export const put = (url: string, body?: string | null, params?: Params) => request('PUT', url, body, params)
export const del = (url: string, body?: string | null, params?: Params) => request('DELETE', url, body, params)

export default { request, get, post, put, del }
