import { once } from 'node:events'
import { createLogger, serverStreamHandler } from '@content/platform'
import type { v1 } from '@content/protos'
import type { FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { BUSY_KEY, IMAGE_KEY, fakeBytes, signThumbnail } from '../support/fake-poster.js'
import { listen, readAnswer } from '../support/http-client.js'
import { buildTestApp } from '../support/test-app.js'
import { gatewayTest } from '../support/gateway-test.js'
import { signToken } from '../support/tokens.js'
import { request } from 'node:http'

const gw = gatewayTest({ settings: { thumbnailCacheBytes: 8 * 1024 * 1024, thumbnailCacheTtl: 30 }, now: () => clock.t })
const clock = { t: Date.now() }
beforeEach(() => { clock.t = Date.now() })
afterEach(() => { gw.backends.posterFake.failAfterChunks = undefined })

const get = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') => gw.app.inject({ method, url, headers })
const callsOf = (method: string) => gw.backends.calls.filter((c) => c.method === `poster.${method}`)
const lastRequest = (method: string) => callsOf(method).at(-1)?.request as Record<string, unknown>
const bearer = async (groups: string[]) => ({ authorization: `Bearer ${await signToken({ groups })}` })

const PIC = '/media/4/%C3%A9t%C3%A9%202024.jpg'
const picBytes = fakeBytes(300_000, 4)

describe('GET /media/{object_id}/{file_name}', () => {
  it('when a public original is read anonymously, then its bytes with the download headers', async () => {
    const res = await get(PIC)
    expect(res.statusCode).toBe(200)
    expect(res.rawPayload.equals(picBytes)).toBe(true)
    expect(res.headers).toMatchObject({
      'content-type': 'image/jpeg', 'content-length': '300000', etag: expect.stringMatching(/^"[0-9a-f]{16}"$/),
      'x-content-type-options': 'nosniff', 'cache-control': 'no-cache', 'accept-ranges': 'bytes',
      'content-disposition': `inline; filename="_t_ 2024.jpg"; filename*=UTF-8''%C3%A9t%C3%A9%202024.jpg`,
      'content-security-policy': "default-src 'none'; sandbox",
    })
    expect(callsOf('GetOriginal').at(-1)?.caller).toEqual({ user_id: 0, groups: [], may_write: false })
    expect(lastRequest('GetOriginal')).toEqual({
      object_id: '4', file_name: 'été 2024.jpg', if_range: '', head: false,
    })
  })

  it('when read with a token, then private', async () => {
    const res = await get('/media/pic/%C3%A9t%C3%A9%202024.jpg', await bearer(['editor']))
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toBe('private, no-cache')
    expect(lastRequest('GetOriginal')).toMatchObject({ object_id: 'pic' })
    expect(callsOf('GetOriginal').at(-1)?.caller).toMatchObject({ user_id: 7, groups: ['editor'] })
  })

  it('when a range is asked, then 206 with exactly those bytes and Content-Range', async () => {
    const res = await get(PIC, { range: 'bytes=100-199' })
    expect(res.statusCode).toBe(206)
    expect(res.headers).toMatchObject({ 'content-range': 'bytes 100-199/300000', 'content-length': '100' })
    expect(res.rawPayload.equals(picBytes.subarray(100, 200))).toBe(true)
    expect(lastRequest('GetOriginal')).toMatchObject({ range_start: 100, range_end: 199 })
  })

  it('when a suffix range is asked, then the last bytes', async () => {
    const res = await get(PIC, { range: 'bytes=-10' })
    expect(res.statusCode).toBe(206)
    expect(res.headers['content-range']).toBe('bytes 299990-299999/300000')
    expect(res.rawPayload.equals(picBytes.subarray(-10))).toBe(true)
    expect(lastRequest('GetOriginal')).toMatchObject({ suffix_length: 10 })
  })

  it('when several ranges or garbage are asked, then the whole file, no range sent on', async () => {
    for (const range of ['bytes=0-1,5-6', 'bytes=x-y', 'pages=1-2']) {
      const res = await get(PIC, { range })
      expect(res.statusCode).toBe(200)
      expect(res.rawPayload.length).toBe(300_000)
      const sent = lastRequest('GetOriginal')
      expect(['range_start', 'range_end', 'suffix_length'].some((k) => k in sent)).toBe(false)
    }
  })

  it('when If-Range names another version, then the whole file', async () => {
    const res = await get(PIC, { range: 'bytes=0-9', 'if-range': '"old"' })
    expect(res.statusCode).toBe(200)
    expect(lastRequest('GetOriginal')).toMatchObject({ range_start: 0, range_end: 9, if_range: '"old"' })
  })

  it('when the range is past the end, then 416 with Content-Range: bytes */total and the error body', async () => {
    const res = await get(PIC, { range: 'bytes=300000-' })
    expect(res.statusCode).toBe(416)
    expect(res.headers['content-range']).toBe('bytes */300000')
    expect(res.json()).toEqual({ error: { status: 416, code: 'RANGE_NOT_SATISFIABLE', message: expect.any(String), details: { total_size: 300000 }, more_info: 'http://localhost:80/docs/errors#RANGE_NOT_SATISFIABLE', url: `http://localhost:80${PIC}` } })
  })

  it('when If-None-Match matches, then 304 without a body, with ETag and Cache-Control', async () => {
    const etag = (await get(PIC)).headers.etag as string
    const res = await get(PIC, { 'if-none-match': `"nope", ${etag}` })
    expect(res.statusCode).toBe(304)
    expect(res.rawPayload.length).toBe(0)
    expect(res.headers).toMatchObject({ etag, 'cache-control': 'no-cache' })
    expect(res.headers['content-disposition']).toBeUndefined()
  })

  it('when HEAD, then the headers of the GET without a body, and the poster service sends no bytes', async () => {
    const res = await get(PIC, {}, 'HEAD')
    expect(res.statusCode).toBe(200)
    expect(res.rawPayload.length).toBe(0)
    expect(res.headers).toMatchObject({ 'content-length': '300000', 'content-type': 'image/jpeg', 'accept-ranges': 'bytes' })
    expect(lastRequest('GetOriginal')).toMatchObject({ head: true })
  })

  it.each([
    ['a protected file, anonymously', '/media/6/secret.pdf', {}, 401, 'OBJECT_PROTECTED'],
    ['a protected file, without the group', '/media/6/secret.pdf', ['editor'], 403, 'PERMISSION_DENIED'],
    ['an unknown object', '/media/999/x.jpg', {}, 404, 'OBJECT_NOT_FOUND'],
    ['another file name', '/media/4/other.jpg', {}, 404, 'FILE_NOT_FOUND'],
    ['an object without a file', '/media/3/x.jpg', {}, 404, 'FILE_NOT_FOUND'],
  ] as const)('when %s, then %i %s as the error body', async (_name, url, groups, status, code) => {
    const res = await get(url, Array.isArray(groups) ? await bearer(groups) : {})
    expect(res.statusCode).toBe(status)
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(res.headers['cache-control']).toBe('no-store')
    expect(res.headers['content-disposition']).toBeUndefined()
    expect(res.json()).toEqual({ error: { status, code, message: expect.any(String), details: null, more_info: `http://localhost:80/docs/errors#${code}`, url: `http://localhost:80${url}` } })
    if (status === 401) expect(res.headers['www-authenticate']).toBe('Bearer realm="content-objects"')
  })

  it('when a member reads the protected file, then it is an attachment, private', async () => {
    const res = await get('/media/6/secret.pdf', await bearer(['members']))
    expect(res.statusCode).toBe(200)
    expect(res.headers).toMatchObject({ 'content-type': 'application/pdf', 'cache-control': 'private, no-cache' })
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="secret.pdf"/)
  })

  it.each(['/media/4/a.jpg?sig=x', '/media/4/a.jpg?page=1'])('when %s, then 400 UNKNOWN_QUERY_PARAMETER before the backend', async (url) => {
    expect((await get(url)).json().error.code).toBe('UNKNOWN_QUERY_PARAMETER')
    expect(callsOf('GetOriginal')).toHaveLength(0)
  })
})

describe('originals over a real connection', () => {
  let target: { host: string, port: number }
  let server: FastifyInstance
  beforeAll(async () => {
    server = await buildTestApp(gw.backends)
    target = await listen(server)
  })
  afterAll(async () => { await server.close() })

  const fetchRaw = (path: string) => new Promise<{ status: number, headers: Record<string, unknown>, received: number, aborted: boolean }>((resolve, reject) => {
    const req = request({ ...target, path }, (res) => {
      let received = 0
      let aborted = false
      res.on('data', (c: Buffer) => { received += c.length })
      res.on('aborted', () => { aborted = true })
      res.on('error', () => { aborted = true })
      res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, received, aborted: aborted || !res.complete }))
    })
    req.on('error', reject)
    req.end()
  })

  it('when the file streams, then the client gets all bytes in order', async () => {
    const answer = await readAnswer(await new Promise((resolve) => request({ ...target, path: PIC }, resolve).end()))
    expect(answer.status).toBe(200)
    expect(answer.body.equals(picBytes)).toBe(true)
  })

  it('when the poster service fails after some bytes, then the response is cut short (never padded) and the gateway keeps serving', async () => {
    gw.backends.posterFake.failAfterChunks = 2
    const res = await fetchRaw(PIC)
    expect(res.status).toBe(200)
    expect(res.headers['content-length']).toBe('300000')
    expect(res.received).toBeLessThan(300_000)
    expect(res.aborted).toBe(true)
    gw.backends.posterFake.failAfterChunks = undefined
    expect((await fetchRaw(PIC)).received).toBe(300_000)
  })

  it('when the client goes away midway, then the GetOriginal stream is cancelled', async () => {
    let cancelled: (() => void) | undefined
    const sawCancel = new Promise<void>((resolve) => { cancelled = resolve })
    const original = gw.backends.poster.GetOriginal
    const endless = 1 << 30
    gw.backends.poster.GetOriginal = serverStreamHandler<v1.GetOriginalRequest__Output, v1.FileChunk>('GetOriginal', async function * (_req, signal) {
      signal.addEventListener('abort', () => cancelled?.())
      yield { header: { mime_type: 'video/mp4', size: endless, total_size: endless, etag: '"v"', public: true, immutable: false, expires_at: 0, file_name: 'v.mp4', inline: true } }
      while (!signal.aborted) yield { chunk: Buffer.alloc(64 * 1024) }
    }, createLogger({ service: 'test', level: 'silent' }))
    try {
      const res = await new Promise<import('node:http').IncomingMessage>((resolve) => request({ ...target, path: '/media/4/v.mp4' }, resolve).end())
      expect(res.statusCode).toBe(200)
      await once(res, 'data')
      res.destroy()
      // promptly, not when the stream's deadline (10 s here) passes
      await Promise.race([sawCancel, new Promise((_resolve, reject) => setTimeout(() => reject(new Error('not cancelled within 2 s')), 2_000))])
    } finally {
      gw.backends.poster.GetOriginal = original
    }
    expect((await fetchRaw(PIC)).received).toBe(300_000)
  })

  it('when the poster service fails after the header but before any byte, then the error body, without the file\'s headers', async () => {
    gw.backends.posterFake.failAfterChunks = 0
    const answer = await readAnswer(await new Promise((resolve) => request({ ...target, path: PIC }, resolve).end()))
    expect(answer.status).toBe(404)
    expect(JSON.parse(answer.body.toString()).error).toMatchObject({ status: 404, code: 'FILE_NOT_FOUND' })
    for (const name of ['content-disposition', 'etag', 'accept-ranges', 'content-security-policy']) expect(answer.headers[name]).toBeUndefined()
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8')
  })
})

describe('GET /thumbnails/…', () => {
  const path = `${IMAGE_KEY}/130x85.jpg`
  const url = (p = path, expires = '') => `/thumbnails/${p}?${expires ? `expires=${expires}&` : ''}sig=${signThumbnail(p, expires)}`
  const thumbnailCalls = () => callsOf('GetThumbnail').length

  it('when a public thumbnail is asked, then its bytes with immutable public caching and the raw request sent on', async () => {
    const res = await get(url(`${IMAGE_KEY}/131x85.jpg`))
    expect(res.statusCode).toBe(200)
    expect(res.rawPayload.equals(fakeBytes(131 * 85, 131))).toBe(true)
    expect(res.headers).toMatchObject({
      'content-type': 'image/jpeg', 'content-length': String(131 * 85), 'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff', etag: expect.any(String),
    })
    expect(res.headers['content-disposition']).toBeUndefined()
    expect(lastRequest('GetThumbnail')).toEqual({ path: `${IMAGE_KEY}/131x85.jpg`, expires: '', signature: signThumbnail(`${IMAGE_KEY}/131x85.jpg`, ''), head: false })
  })

  it('when asked again, then the cache answers without the poster service: GET, HEAD and If-None-Match', async () => {
    const first = await get(url())
    const calls = thumbnailCalls()
    const again = await get(url())
    expect(again.statusCode).toBe(200)
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true)
    expect(again.headers).toMatchObject({ etag: first.headers.etag, 'cache-control': first.headers['cache-control'], 'content-length': first.headers['content-length'] })
    const head = await get(url(), {}, 'HEAD')
    expect(head.statusCode).toBe(200)
    expect(head.rawPayload.length).toBe(0)
    expect(head.headers['content-length']).toBe(first.headers['content-length'])
    const notModified = await get(url(), { 'if-none-match': first.headers.etag as string })
    expect(notModified.statusCode).toBe(304)
    expect(thumbnailCalls()).toBe(calls)
  })

  it('when a cached thumbnail is asked with a token, an access_token, a bad token or an odd query, then the general path gives the same bytes or the same refusal', async () => {
    const plain = await get(url())
    const calls = thumbnailCalls()
    const withHeader = await get(url(), await bearer(['editor']))
    const withQuery = await get(`${url()}&access_token=${await signToken({ groups: [] })}`)
    for (const res of [withHeader, withQuery]) {
      expect(res.statusCode).toBe(200)
      expect(res.rawPayload.equals(plain.rawPayload)).toBe(true)
      expect(res.headers.etag).toBe(plain.headers.etag)
    }
    expect(thumbnailCalls()).toBe(calls) // still the cache
    expect((await get(url(), { authorization: 'Bearer garbage' })).statusCode).toBe(401)
    expect((await get(`${url()}&width=1`)).statusCode).toBe(400)
    expect((await get(url().replace('/thumbnails/', '/thumbnails//'))).statusCode).toBe(200)
  })

  it('when THUMBNAIL_CACHE_TTL has passed, then the poster service is asked again', async () => {
    const p = `${IMAGE_KEY}/140x85.jpg`
    await get(url(p))
    await get(url(p))
    expect(thumbnailCalls()).toBe(1)
    clock.t += 30_001
    expect((await get(url(p))).statusCode).toBe(200)
    expect(thumbnailCalls()).toBe(2)
  })

  it('when a protected thumbnail URL expires before the TTL, then it is not served from the cache past its expiry', async () => {
    const p = `${IMAGE_KEY}/150x85.jpg`
    const expires = String(Math.floor(clock.t / 1000) + 6)
    const first = await get(url(p, expires))
    expect(first.statusCode).toBe(200)
    expect(first.headers['cache-control']).toMatch(/^private, max-age=[5-6]$/)
    await get(url(p, expires))
    expect(thumbnailCalls()).toBe(1)
    clock.t = Number(expires) * 1000 + 1
    await get(url(p, expires))
    expect(thumbnailCalls()).toBe(2)
  })

  it('when the URL has expired, then 404 THUMBNAIL_EXPIRED', async () => {
    const res = await get(url(path, String(Math.floor(Date.now() / 1000) - 10)))
    expect(res.json().error).toMatchObject({ status: 404, code: 'THUMBNAIL_EXPIRED' })
  })

  it.each([
    ['a bad signature', `/thumbnails/${path}?sig=AAAAAAAAAAAAAAAAAAAAAA`],
    ['no signature', `/thumbnails/${path}`],
    ['a malformed path', `/thumbnails/..%2F..%2Fetc/passwd?sig=x`],
  ])('when %s, then 404 THUMBNAIL_NOT_FOUND and nothing cached', async (_name, bad) => {
    expect((await get(bad)).json().error).toMatchObject({ status: 404, code: 'THUMBNAIL_NOT_FOUND' })
    expect((await get(bad)).statusCode).toBe(404)
    expect(thumbnailCalls()).toBe(2)
  })

  it('when rendering is saturated, then 503 with Retry-After', async () => {
    const res = await get(url(`${BUSY_KEY}/10x10.png`))
    expect(res.statusCode).toBe(503)
    expect(res.headers['retry-after']).toBe('3')
    expect(res.json().error.code).toBe('THUMBNAIL_BUSY')
  })

  it('when a thumbnail is over 1 MiB, then it streams through and is not kept', async () => {
    const p = `${IMAGE_KEY}/1100x1000.png`
    const res = await get(url(p))
    expect(res.statusCode).toBe(200)
    expect(res.rawPayload.length).toBe(1_100_000)
    await get(url(p))
    expect(thumbnailCalls()).toBe(2)
  })

  it('when the first request is a HEAD or a matching If-None-Match, then nothing is kept and the next GET asks again', async () => {
    const p = `${IMAGE_KEY}/160x85.jpg`
    const head = await get(url(p), {}, 'HEAD')
    expect(lastRequest('GetThumbnail')).toMatchObject({ head: true })
    expect((await get(url(p), { 'if-none-match': head.headers.etag as string })).statusCode).toBe(304)
    expect((await get(url(p))).rawPayload.length).toBe(160 * 85)
    expect(thumbnailCalls()).toBe(3)
  })

  it.each(['width=10', 'sig=a&sig=b'])('when the query has %s, then 400 before the backend', async (query) => {
    expect((await get(`/thumbnails/${path}?${query}`)).statusCode).toBe(400)
    expect(thumbnailCalls()).toBe(0)
  })

  it('when the cache is off, then every request reaches the poster service', async () => {
    const off = await buildTestApp(gw.backends, { settings: { thumbnailCacheBytes: 0 } })
    try {
      await off.inject({ method: 'GET', url: url() })
      await off.inject({ method: 'GET', url: url() })
      expect(thumbnailCalls()).toBe(2)
    } finally {
      await off.close()
    }
  })
})
