/**
 * A tiny in-memory stand-in for the gateway, shaped like the spec's envelopes, so the k6 scripts'
 * wiring can be exercised without k6 or the real services. Not a model of the API's rules.
 */
import type { FakeReply, FakeRequest } from './k6-shim/http.ts'
import { must } from './must.ts'

interface Obj { id: number, object_type: string, parents: number[], relations: Map<string, number[]> }
export const BASE = 'http://fake.test:8080'
const ACCESS_TTL = 600
// biome-ignore lint/suspicious/noExplicitAny: a request's JSON body, read by path as the real API reads it
type JsonBody = Record<string, any>

export class FakeApi {
  readonly objects = new Map<number, Obj>()
  readonly refreshTokens = new Map<string, 'live' | 'revoked'>()
  readonly uploads = new Set<string>()
  private nextId = 1
  private nextToken = 1
  healthy = true
  /** the gateway's basePath: every endpoint lives below it, `/healthz` only at the root */
  basePath = ''

  constructor (readonly username = 'admin', readonly password = 'secret-password') {
    this.add('area', [])
    const section = this.add('section', [1])
    const doc = this.add('document', [section])
    const other = this.add('document', [section])
    const image = this.add('image', [1])
    this.relate(doc, 'seealso', other)
    this.relate(doc, 'attach', image)
  }

  add (type: string, parents: number[]): number {
    const id = this.nextId++
    this.objects.set(id, { id, object_type: type, parents, relations: new Map() })
    return id
  }

  relate (a: number, name: string, b: number): void {
    const rel = must(this.objects.get(a)).relations
    rel.set(name, [...(rel.get(name) ?? []), b])
  }

  children (id: number): Obj[] { return [...this.objects.values()].filter((o) => o.parents.includes(id)) }

  handle = (req: FakeRequest): FakeReply => {
    const url = new URL(req.url)
    if (url.pathname !== '/healthz') {
      if (!url.pathname.startsWith(`${this.basePath}/`)) return { status: 404, body: {} }
      url.pathname = url.pathname.slice(this.basePath.length)
      if (url.pathname === '/healthz') return { status: 404, body: {} }
    }
    const route = `${req.method} ${url.pathname.replace(/\/\d+/g, '/{id}').replace(/\/relations\/[a-z_]+/, '/relations/{name}')}`
    const ids = [...url.pathname.matchAll(/\/(\d+)/g)].map((m) => Number(m[1]))
    const body = req.body === null || !req.body.startsWith('{') ? undefined : JSON.parse(req.body) as JsonBody
    const token = req.headers.Authorization?.replace(/^Bearer /, '')
    const env = (api: string, data: unknown, extra: object = {}) => ({ api, data, method: req.method.toLowerCase(), params: [], url: `${BASE}${url.pathname}`, ...extra })
    const list = (items: Obj[]) => {
      const page = Number(url.searchParams.get('page') ?? 1)
      const size = Number(url.searchParams.get('page_size') ?? 20)
      const slice = items.slice((page - 1) * size, page * size)
      return env('objects', { objects: slice.map((o) => this.summary(o)) }, {
        paging: { page, page_size: size, page_count: slice.length, total: items.length, total_pages: Math.ceil(items.length / size) },
      })
    }
    if (route.startsWith('POST /') && !route.startsWith('POST /auth') || route.startsWith('PUT ') || route.startsWith('DELETE /objects')) {
      if (!token?.startsWith('access-')) return { status: 401, body: { error: { status: 401, code: 'AUTHENTICATION_REQUIRED', message: 'x' } } }
    }
    switch (route) {
      case 'GET /healthz': return this.healthy ? { status: 200, body: { status: 'ok' } } : { status: 503 }
      case 'GET /objects': return { status: 200, body: list([...this.objects.values()].filter((o) => o.id !== 1)) }
      case 'GET /objects/{id}': {
        const o = this.objects.get(must(ids[0]))
        return o ? { status: 200, body: env('objects', { object: this.summary(o) }) } : { status: 404, body: {} }
      }
      case 'GET /objects/{id}/children': return { status: 200, body: list(this.children(must(ids[0]))) }
      case 'GET /objects/{id}/relations/{name}': {
        const name = must(must(/relations\/([a-z_]+)/.exec(url.pathname))[1])
        const related = (this.objects.get(must(ids[0]))?.relations.get(name) ?? []).map((id) => must(this.objects.get(id)))
        return { status: 200, body: list(related) }
      }
      case 'GET /poster/{id}': return this.objects.has(must(ids[0]))
        ? { status: 200, body: env('poster', { id: ids[0], uri: `${BASE}/thumbnails/${'a'.repeat(64)}/130x85.jpg?sig=s` }) }
        : { status: 404, body: {} }
      case 'POST /objects': {
        const { data } = must(body)
        const id = this.add(data.object_type, data.parents)
        if (data.upload_token !== undefined && !this.uploads.delete(data.upload_token)) return { status: 400, body: {} }
        return { status: 201, body: env('objects', { object: this.summary(must(this.objects.get(id))) }) }
      }
      case 'POST /objects/{id}/relations/{name}': {
        for (const item of must(body).data) this.relate(must(ids[0]), 'seealso', item.related_id)
        return { status: 201, body: env('objects', must(body).data) }
      }
      case 'PUT /objects/{id}/children/{id}': return { status: 200, body: env('objects', { priority: must(body).data.priority }) }
      case 'DELETE /objects/{id}': {
        const o = this.objects.get(must(ids[0]))
        if (!o) return { status: 404, body: {} }
        if (this.children(o.id).length > 0) return { status: 400, body: {} }
        this.objects.delete(o.id)
        return { status: 204 }
      }
      default:
        if (route.startsWith('GET /thumbnails/') || route.startsWith('GET /media/{id}/')) return { status: 200, headers: { 'Content-Type': 'image/jpeg' } }
        if (route.startsWith('POST /files/image/')) {
          const uploadToken = `upload-${this.nextToken++}`
          this.uploads.add(uploadToken)
          return { status: 200, body: env('files', { upload_token: uploadToken, expires_in: 1800, name: 'x.jpg', mime_type: 'image/jpeg', file_size: 3 }) }
        }
        return this.auth(route, body, token, env)
    }
  }

  private auth (route: string, body: JsonBody | undefined, token: string | undefined, env: (api: string, data: unknown) => object): FakeReply {
    const issue = () => {
      const refresh = `refresh-${this.nextToken++}`
      this.refreshTokens.set(refresh, 'live')
      return { status: 200, body: env('auth', { access_token: `access-${this.nextToken}.p.s`, expires_in: ACCESS_TTL, refresh_token: refresh }) }
    }
    if (route === 'POST /auth' && body?.grant_type === 'refresh_token') {
      if (this.refreshTokens.get(body.refresh_token) !== 'live') return { status: 401, body: {} }
      this.refreshTokens.set(body.refresh_token, 'revoked')
      return issue()
    }
    if (route === 'POST /auth') return body?.username === this.username && body?.password === this.password ? issue() : { status: 401, body: {} }
    if (!token?.startsWith('access-')) return { status: 401, body: {} }
    if (route === 'GET /auth') return { status: 200, body: env('auth', { access_token: token, expires_in: ACCESS_TTL - 1 }) }
    if (route.startsWith('DELETE /auth/')) {
      const refresh = decodeURIComponent(route.slice('DELETE /auth/'.length))
      if (this.refreshTokens.get(refresh) !== 'live') return { status: 404, body: {} }
      this.refreshTokens.set(refresh, 'revoked')
      return { status: 204 }
    }
    return { status: 404, body: {} }
  }

  private summary (o: Obj) {
    const relations = Object.fromEntries([...o.relations].map(([n, r]) => [n, { count: r.length, url: `${BASE}/objects/${o.id}/relations/${n}` }]))
    const file = o.object_type === 'image' ? { uri: `${BASE}/media/${o.id}/x.jpg` } : {}
    return { id: o.id, object_type: o.object_type, relations, ...file, ...(['area', 'section'].includes(o.object_type) ? { children: { count: this.children(o.id).length } } : {}) }
  }
}
