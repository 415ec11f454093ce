import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ApiError, createClient, type LiveEvent, memoryStorage } from '../src/index.js'

/** A local stand-in for GET /changes: each connection is answered by the next script. */
interface Connection { req: IncomingMessage, res: ServerResponse, closed: Promise<void> }
type Script = (c: Connection) => void

let server: Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined))
  server = undefined
})

async function sseServer (scripts: Script[], extra: (req: IncomingMessage, res: ServerResponse) => boolean = () => false) {
  const connections: Connection[] = []
  server = createServer((req, res) => {
    if (extra(req, res)) return
    const closed = new Promise<void>((resolve) => res.on('close', () => resolve()))
    const connection = { req, res, closed }
    connections.push(connection)
    const script = scripts[connections.length - 1]
    if (script) script(connection)
    else { res.writeHead(503, { 'content-type': 'application/json' }); res.end('{}') }
  })
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { base: `http://127.0.0.1:${port}`, connections }
}

const open = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
const change = (id: number, type = 'object.updated') =>
  `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify({ type, timestamp: '2026-01-01T00:00:00+0000', data: { seq: id, object_id: 10 + id, object_type: 'document' } })}\n\n`
const tokens = { accessToken: 'access-1', refreshToken: 'refresh-1', expiresAt: Date.now() + 600_000 }

/** Resolves once `predicate` holds for what was received. */
async function until (predicate: () => boolean, ms = 5_000): Promise<void> {
  const started = Date.now()
  while (!predicate()) {
    if (Date.now() - started > ms) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('client.changes.subscribe', () => {
  it('calls onOpen each time the server answers a stream, before its events, and not for a refused one', async () => {
    const { base, connections } = await sseServer([
      ({ res }) => { res.writeHead(503, { 'content-type': 'application/json' }); res.end('{}') },
      ({ res }) => { open(res); res.write(change(1)); setTimeout(() => res.destroy(), 30) },
      ({ res }) => { open(res); res.write(change(2)) },
    ])
    const seen: string[] = []
    const unsubscribe = createClient({ baseUrl: base }).changes.subscribe({}, (e) => seen.push('id' in e ? `event ${e.id}` : e.type), {
      onOpen: () => seen.push('open'), onError: () => seen.push('error'), retryMs: 10,
    })
    await until(() => seen.includes('event 2'))
    unsubscribe()
    expect(seen.filter((s) => s !== 'error')).toEqual(['open', 'event 1', 'open', 'event 2'])
    expect(connections).toHaveLength(3)
  })

  it('parses events with the token, resumes with Last-Event-ID after a cut, surfaces reset and shutdown, and stops on unsubscribe', async () => {
    const { base, connections } = await sseServer([
      ({ res }) => {
        open(res)
        // a comment, a retry hint, two changes split across writes, then the connection drops
        res.write(': ping\n\nretry: 20\n\n')
        res.write(change(1, 'object.created').slice(0, 25))
        res.write(change(1, 'object.created').slice(25) + change(2))
        setTimeout(() => res.destroy(), 30)
      },
      ({ res }) => {
        open(res)
        res.write('event: reset\ndata: {"type":"reset"}\n\n')
        res.write(change(7, 'object.trashed'))
        res.write('event: shutdown\ndata: {"type":"shutdown"}\n\n')
        res.end()
      },
      ({ res }) => { open(res); res.write(': ping\n\n') },
    ])
    const client = createClient({ baseUrl: base, storage: memoryStorage(tokens) })
    const events: LiveEvent[] = []
    const errors: unknown[] = []
    const unsubscribe = client.changes.subscribe(
      { filter: { object_type: ['document', 'event'], parent: 5 }, events: ['object.created', 'object.updated', 'object.trashed'] },
      (event) => events.push(event),
      { onError: (err) => errors.push(err), retryMs: 10_000 },
    )
    await until(() => connections.length === 3)
    unsubscribe()
    await connections[2]?.closed

    expect(events).toEqual([
      { type: 'object.created', id: '1', timestamp: '2026-01-01T00:00:00+0000', data: { seq: 1, object_id: 11, object_type: 'document' } },
      { type: 'object.updated', id: '2', timestamp: '2026-01-01T00:00:00+0000', data: { seq: 2, object_id: 12, object_type: 'document' } },
      { type: 'reset' },
      { type: 'object.trashed', id: '7', timestamp: '2026-01-01T00:00:00+0000', data: { seq: 7, object_id: 17, object_type: 'document' } },
      { type: 'shutdown' },
    ])
    const [first, second, third] = connections.map((c) => c.req)
    expect(first?.headers.authorization).toBe('Bearer access-1')
    expect(first?.headers.accept).toBe('text/event-stream')
    // a header the API's CORS preflight does not allow would keep a page of another origin from opening the stream
    expect(first?.headers['cache-control']).toBeUndefined()
    expect(first?.headers['last-event-id']).toBeUndefined()
    const url = new URL(first?.url ?? '', base)
    expect(url.pathname).toBe('/changes')
    expect(Object.fromEntries(url.searchParams)).toEqual({
      'filter[object_type]': 'document,event', 'filter[parent]': '5', events: 'object.created,object.updated,object.trashed',
    })
    // the server's retry: 20 replaced the 10 s the caller asked for; each reconnect names the last id seen
    expect(second?.headers['last-event-id']).toBe('2')
    expect(third?.headers['last-event-id']).toBe('7')
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(connections).toHaveLength(3)
    // the cut connection is reported, nothing else
    expect(errors.every((e) => !(e instanceof ApiError))).toBe(true)
  })

  it('cut before its first event, resumes from the position the server answered in X-Last-Event-ID; a later cut from the last event', async () => {
    const { base, connections } = await sseServer([
      ({ res }) => { res.writeHead(200, { 'content-type': 'text/event-stream', 'x-last-event-id': '41.s' }); res.write(': ping\n\n'); setTimeout(() => res.destroy(), 30) },
      ({ res }) => { open(res); res.write(change(42)); setTimeout(() => res.destroy(), 30) },
      ({ res }) => { res.writeHead(200, { 'content-type': 'text/event-stream', 'x-last-event-id': '99.s' }); res.write(': ping\n\n') },
    ])
    const seen: string[] = []
    const unsubscribe = createClient({ baseUrl: base }).changes.subscribe({}, (e) => seen.push('id' in e ? String(e.id) : e.type), { retryMs: 10 })
    await until(() => connections.length === 3)
    unsubscribe()
    expect(seen).toEqual(['42'])
    expect(connections.map((c) => c.req.headers['last-event-id'])).toEqual([undefined, '41.s', '42'])
  })

  it('surfaces revoked (the login ended: a logout, a password change, a disabled user) and does not reconnect', async () => {
    const { base, connections } = await sseServer([
      ({ res }) => {
        open(res)
        res.write(`retry: 10\n\n${change(1)}`)
        res.end('event: revoked\ndata: {"type":"revoked"}\n\n')
      },
      ({ res }) => { open(res); res.write(change(2)) },
    ])
    const events: LiveEvent[] = []
    const errors: unknown[] = []
    const unsubscribe = createClient({ baseUrl: base, storage: memoryStorage(tokens) }).changes.subscribe({}, (e) => events.push(e), { onError: (err) => errors.push(err), retryMs: 10 })
    await until(() => events.length === 2)
    await new Promise((resolve) => setTimeout(resolve, 150))
    unsubscribe()
    expect(events.map((e) => e.type)).toEqual(['object.updated', 'revoked'])
    expect(errors).toEqual([])
    expect(connections).toHaveLength(1)
  })

  it('resumes from a given position, and reports a malformed event without dropping the stream', async () => {
    const { base, connections } = await sseServer([
      ({ res }) => { open(res); res.write('id: 3\nevent: object.updated\ndata: not json\n\n'); res.write(change(4)) },
    ])
    const client = createClient({ baseUrl: base })
    const events: LiveEvent[] = []
    const errors: unknown[] = []
    const unsubscribe = client.changes.subscribe({}, (e) => events.push(e), { lastEventId: '2', onError: (e) => errors.push(e) })
    await until(() => events.length === 1)
    unsubscribe()
    expect(connections[0]?.req.headers['last-event-id']).toBe('2')
    // anonymous: no token to send
    expect(connections[0]?.req.headers.authorization).toBeUndefined()
    expect(events).toEqual([expect.objectContaining({ type: 'object.updated', id: '4' })])
    expect(errors).toEqual([expect.objectContaining({ name: 'ApiError', code: 'UNEXPECTED_RESPONSE' })])
  })

  it('refreshes an expired token and opens the stream again with the new one', async () => {
    let refreshes = 0
    const { base, connections } = await sseServer([
      ({ res }) => {
        res.writeHead(401, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { status: 401, code: 'TOKEN_EXPIRED', message: 'expired', details: null, more_info: null, url: '' } }))
      },
      ({ res }) => { open(res); res.write(change(1)) },
    ], (req, res) => {
      if (req.method !== 'POST' || req.url !== '/auth') return false
      refreshes++
      let body = ''
      req.on('data', (c) => { body += c })
      req.on('end', () => {
        expect(JSON.parse(body)).toEqual({ grant_type: 'refresh_token', refresh_token: 'refresh-1' })
        expect(req.headers.authorization).toBeUndefined()
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ api: 'auth', data: { access_token: 'access-2', expires_in: 600, refresh_token: 'refresh-2' }, method: 'post', params: [], url: '' }))
      })
      return true
    })
    const storage = memoryStorage(tokens)
    const client = createClient({ baseUrl: base, storage })
    const events: LiveEvent[] = []
    const unsubscribe = client.changes.subscribe({}, (e) => events.push(e))
    await until(() => events.length === 1)
    unsubscribe()
    expect(refreshes).toBe(1)
    expect(connections.map((c) => c.req.headers.authorization)).toEqual(['Bearer access-1', 'Bearer access-2'])
    expect(await storage.load()).toMatchObject({ accessToken: 'access-2', refreshToken: 'refresh-2' })
  })

  it('gives up on a refused request (400) after reporting it, and retries an overloaded server (503, Retry-After)', async () => {
    const refusal = { error: { status: 400, code: 'INVALID_PARAMETER', message: 'bad', details: { parameter: 'events' }, more_info: null, url: '' } }
    const { base, connections } = await sseServer([
      ({ res }) => { res.writeHead(400, { 'content-type': 'application/json' }); res.end(JSON.stringify(refusal)) },
    ])
    const errors: unknown[] = []
    const stop = createClient({ baseUrl: base }).changes.subscribe({}, () => {}, { onError: (e) => errors.push(e), retryMs: 10 })
    await until(() => errors.length === 1)
    await new Promise((resolve) => setTimeout(resolve, 100))
    stop()
    expect(connections).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(ApiError)
    expect(errors[0]).toMatchObject({ status: 400, code: 'INVALID_PARAMETER', details: { parameter: 'events' } })

    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
    const busy = await sseServer([
      ({ res }) => { res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' }); res.end('busy') },
      ({ res }) => { open(res); res.write(change(1)) },
    ])
    const events: LiveEvent[] = []
    const busyErrors: unknown[] = []
    const started = Date.now()
    const stopBusy = createClient({ baseUrl: busy.base }).changes.subscribe({}, (e) => events.push(e), { onError: (e) => busyErrors.push(e), retryMs: 10 })
    await until(() => events.length === 1)
    stopBusy()
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000)
    expect(busyErrors).toEqual([expect.objectContaining({ status: 503, code: 'UNEXPECTED_RESPONSE' })])
  })
})
