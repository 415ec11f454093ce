import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { gatewayTest } from '../support/gateway-test.js'
import { signToken } from '../support/tokens.js'

const gw = gatewayTest(null)
let cached: FastifyInstance
let uncached: FastifyInstance
beforeAll(async () => {
  cached = await gw.build({ settings: { readCache: true } })
  // without live streams either, so only the cached gateway follows the feed
  uncached = await gw.build({ settings: { readCache: false }, routing: { blacklist: ['changes'] } })
  await vi.waitFor(() => expect(gw.backends.openStreams()).toBe(1))
})

const bearer = async (groups: string[], id = 7) => ({ authorization: `Bearer ${await signToken({ id, groups })}` })
const getObjectCalls = () => gw.backends.calls.filter((c) => c.method === 'objects.GetObject').length
/** Backend calls a GET caused. */
async function callsFor (app: FastifyInstance, url: string, headers: Record<string, string> = {}) {
  const before = getObjectCalls()
  const res = await app.inject({ method: 'GET', url, headers })
  expect(res.statusCode).toBe(200)
  return getObjectCalls() - before
}

describe('ETag and Cache-Control', () => {
  it('every read carries a strong ETag; If-None-Match answers 304 without body', async () => {
    const first = await uncached.inject({ method: 'GET', url: '/objects/3' })
    const etag = first.headers.etag as string
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/)
    expect(first.headers['cache-control']).toBe('no-cache')
    const again = await uncached.inject({ method: 'GET', url: '/objects/3', headers: { 'if-none-match': etag } })
    expect(again.statusCode).toBe(304)
    expect(again.body).toBe('')
    expect(again.headers.etag).toBe(etag)
    expect((await uncached.inject({ method: 'GET', url: '/objects/3', headers: { 'if-none-match': `"other", W/${etag}` } })).statusCode).toBe(304)
    expect((await uncached.inject({ method: 'GET', url: '/objects/3', headers: { 'if-none-match': '"other"' } })).statusCode).toBe(200)
  })

  it('the ETag changes with the body', async () => {
    const a = await uncached.inject({ method: 'GET', url: '/objects/3' })
    const b = await uncached.inject({ method: 'GET', url: '/objects/4' })
    expect(a.headers.etag).not.toBe(b.headers.etag)
  })

  it('reads with a token are private', async () => {
    const res = await uncached.inject({ method: 'GET', url: '/objects', headers: await bearer(['editor']) })
    expect(res.headers['cache-control']).toBe('private')
    expect(res.headers.etag).toBeDefined()
  })

  it('errors and writes carry no ETag', async () => {
    expect((await uncached.inject({ method: 'GET', url: '/objects/99' })).headers.etag).toBeUndefined()
    const write = await uncached.inject({ method: 'POST', url: '/objects', headers: { ...(await bearer(['editor'])), 'content-type': 'application/json' }, payload: '{"data":{"id":3}}' })
    expect(write.statusCode).toBe(200)
    expect(write.headers.etag).toBeUndefined()
  })
})

describe('read cache', () => {
  it('a repeated anonymous read is served from the cache with the same body and ETag', async () => {
    const url = '/objects/3?page=1'
    const first = await cached.inject({ method: 'GET', url })
    const before = getObjectCalls()
    const second = await cached.inject({ method: 'GET', url })
    expect(getObjectCalls()).toBe(before)
    expect(second.body).toBe(first.body)
    expect(second.headers.etag).toBe(first.headers.etag)
    expect((await cached.inject({ method: 'GET', url, headers: { 'if-none-match': first.headers.etag as string } })).statusCode).toBe(304)
  })

  it('a list filtered by `now` is asked of the backend every time; a fixed date is cached (decisions §15)', async () => {
    const listCalls = () => gw.backends.calls.filter((c) => c.method === 'objects.ListObjects').length
    for (const [url, calls] of [['/objects?filter[modified][lte]=now', 2], ['/objects?filter[modified][lte]=2026-01-01', 1]] as const) {
      const before = listCalls()
      expect((await cached.inject({ method: 'GET', url })).statusCode).toBe(200)
      expect((await cached.inject({ method: 'GET', url })).statusCode).toBe(200)
      expect(listCalls() - before).toBe(calls)
    }
  })

  it('a change event (a write elsewhere) drops the answers that depend on an object it affects, and only those', async () => {
    await callsFor(cached, '/objects/4')
    await callsFor(cached, '/objects/5')
    expect(await callsFor(cached, '/objects/4')).toBe(0)
    gw.backends.emitChange({ affects: [4, 40] })
    await vi.waitFor(async () => expect(await callsFor(cached, '/objects/4')).toBe(1))
    expect(await callsFor(cached, '/objects/4')).toBe(0)
    expect(await callsFor(cached, '/objects/5')).toBe(0)
  })

  it('a new store id, a reset or a window boundary drops everything', async () => {
    for (const change of [{ store_id: 'store-b' }, { reset: true }, { clock: true }]) {
      await callsFor(cached, '/objects/5')
      expect(await callsFor(cached, '/objects/5')).toBe(0)
      gw.backends.emitChange(change)
      await vi.waitFor(async () => expect(await callsFor(cached, '/objects/5')).toBe(1))
    }
  })

  it('different group sets never share entries; same groups of different users do', async () => {
    const url = '/objects/hello'
    const editor = await bearer(['editor'], 7)
    expect(await callsFor(cached, url, editor)).toBe(1)
    expect(await callsFor(cached, url, await bearer(['members']))).toBe(1)
    expect(await callsFor(cached, url, await bearer(['editor', 'members']))).toBe(1)
    expect(await callsFor(cached, url)).toBe(1)
    expect(await callsFor(cached, url, editor)).toBe(0)
    expect(await callsFor(cached, url, await bearer(['editor'], 8))).toBe(0)
  })

  it('a protected object read by a member is not served to anonymous callers', async () => {
    await callsFor(cached, '/objects/6', await bearer(['members']))
    const anon = await cached.inject({ method: 'GET', url: '/objects/6' })
    expect(anon.statusCode).toBe(401)
  })

  it('access_token in the query does not split or leak entries', async () => {
    const token = await signToken({ groups: ['zzz'] })
    expect(await callsFor(cached, `/objects/2?access_token=${token}`)).toBe(1)
    expect(await callsFor(cached, '/objects/2', { authorization: `Bearer ${token}` })).toBe(0)
  })

  it('a write through this gateway is never followed by its old state here (read-your-writes)', async () => {
    const relationCalls = () => gw.backends.calls.filter((c) => c.method === 'objects.GetRelation').length
    await callsFor(cached, '/objects/3/relations/attach/4')
    await callsFor(cached, '/objects/5')
    // the feed holds this write's event back: until it arrives, nothing is served from the cache
    const release = gw.backends.holdFeed()
    try {
      const write = await cached.inject({ method: 'PUT', url: '/objects/3/relations/attach/4', headers: { ...(await bearer(['editor'])), 'content-type': 'application/json' }, payload: '{"data":{"priority":5}}' })
      expect(write.statusCode).toBe(200)
      const before = relationCalls()
      await cached.inject({ method: 'GET', url: '/objects/3/relations/attach/4' })
      expect(relationCalls()).toBe(before + 1)
      expect(await callsFor(cached, '/objects/5')).toBe(1) // bypassed while the feed is behind the write
    } finally {
      release()
    }
    await vi.waitFor(async () => expect(await callsFor(cached, '/objects/5')).toBe(0)) // 5 was not affected
  })

  it('a read behind a write through this gateway waits for the write\'s event, then is served from the cache when the write did not affect it', async () => {
    await callsFor(cached, '/objects/5')
    const release = gw.backends.holdFeed()
    let released = false
    try {
      const write = await cached.inject({ method: 'PUT', url: '/objects/3/relations/attach/4', headers: { ...(await bearer(['editor'])), 'content-type': 'application/json' }, payload: '{"data":{"priority":6}}' })
      expect(write.statusCode).toBe(200)
      const before = getObjectCalls()
      const read = cached.inject({ method: 'GET', url: '/objects/5' })
      setTimeout(() => { released = true; release() }, 10)
      expect((await read).statusCode).toBe(200)
      expect(released).toBe(true)
      expect(getObjectCalls()).toBe(before) // the event came within the wait: no call to the backend
    } finally {
      if (!released) release()
    }
  })

  it('while the change feed is down (its resume does not answer within the grace), reads bypass the cache; when it is back, caching resumes', async () => {
    const original = gw.backends.objects.WatchChanges
    gw.backends.objects.WatchChanges = ((call: { emit(e: string, v: unknown): void }) => {
      call.emit('error', { code: 14, details: 'down' })
    }) as unknown as typeof original
    try {
      gw.backends.breakFeed()
      // two reads in a row reach the backend: the first could be a miss the cache then stores
      await vi.waitFor(async () => {
        expect(await callsFor(cached, '/objects/3')).toBe(1)
        expect(await callsFor(cached, '/objects/3')).toBe(1)
      })
      expect(await callsFor(cached, '/objects/3')).toBe(1)
      expect(await callsFor(cached, '/objects/3')).toBe(1)
    } finally {
      gw.backends.objects.WatchChanges = original
    }
    await vi.waitFor(() => expect(gw.backends.openStreams()).toBe(1), { timeout: 3000 })
    await vi.waitFor(async () => {
      await callsFor(cached, '/objects/3')
      expect(await callsFor(cached, '/objects/3')).toBe(0)
    })
  })

  it('when the feed\'s stream drops and the resume replays from the last position, reads stay cached throughout', async () => {
    await vi.waitFor(() => expect(gw.backends.openStreams()).toBe(1), { timeout: 3000 })
    await callsFor(cached, '/objects/4')
    expect(await callsFor(cached, '/objects/4')).toBe(0)
    await new Promise((r) => setTimeout(r, 1_100)) // a steady stream is resumed at once
    gw.backends.breakFeed()
    for (let i = 0; i < 20; i++) {
      expect(await callsFor(cached, '/objects/4')).toBe(0)
      await new Promise((r) => setTimeout(r, 10))
    }
    await vi.waitFor(() => expect(gw.backends.openStreams()).toBe(1), { timeout: 3000 })
    expect(await callsFor(cached, '/objects/4')).toBe(0)
  })

  it('with READ_CACHE=false every read reaches the backend', async () => {
    expect(await callsFor(uncached, '/objects/3')).toBe(1)
    expect(await callsFor(uncached, '/objects/3')).toBe(1)
  })
})
