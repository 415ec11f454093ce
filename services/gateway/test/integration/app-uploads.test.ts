import { createHash } from 'node:crypto'
import { clientStreamHandler, createLogger, DomainError } from '@content/platform'
import type { v1 } from '@content/protos'
import type { FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { fakeBytes } from '../support/fake-poster.js'
import { listen, openUpload, readAnswer } from '../support/http-client.js'
import { buildTestApp } from '../support/test-app.js'
import { gatewayTest } from '../support/gateway-test.js'
import { signToken } from '../support/tokens.js'

const MiB = 1024 * 1024
const CHUNK = 64 * 1024

const gw = gatewayTest({ settings: { readCache: true }, routing: { writableTypes: ['image', 'b_e_file'] } })
let target: { host: string, port: number }
let bearer: string
beforeAll(async () => {
  target = await listen(gw.app)
  bearer = `Bearer ${await signToken({ id: 7, groups: ['editor'], backend_auth: true })}`
  await vi.waitFor(() => expect(gw.backends.openStreams()).toBe(1))
})
afterEach(() => { gw.backends.posterFake.maxBytes = 64 * MiB })

const uploadCalls = () => gw.backends.calls.filter((c) => c.method === 'poster.Upload').length
const lastUpload = () => {
  const seen = gw.backends.posterFake.uploads.at(-1)
  if (!seen) throw new Error('no upload reached the poster service')
  return seen
}

describe('POST /files/{object_type}/{file_name}', () => {
  it('when a multi-megabyte body is sent in chunks, then the poster service gets every byte in order while the client is still sending', async () => {
    const upload = openUpload(target, '/files/image/big%20photo.png', { authorization: bearer, 'content-type': 'image/png' })
    const chunk = fakeBytes(CHUNK, 1)
    const sha = createHash('sha256')
    const chunks = 128 // 8 MiB
    for (let i = 0; i < chunks; i++) sha.update(chunk)
    await upload.send(chunk, chunks / 2)
    // the gateway holds no more than a few chunks: the first megabytes are at the poster service before the rest is sent
    await vi.waitFor(() => expect(gw.backends.posterFake.uploads.at(-1)?.bytes ?? 0).toBeGreaterThan(2 * MiB))
    expect(upload.sent()).toBe(4 * MiB)
    await upload.send(chunk, chunks / 2)
    upload.req.end()
    const answer = await readAnswer(await upload.response)
    expect(answer.status).toBe(200)
    const seen = lastUpload()
    expect(seen.bytes).toBe(8 * MiB)
    expect(seen.chunks).toBeGreaterThan(8)
    expect(seen.sha256.digest('hex')).toBe(sha.digest('hex'))
    expect(gw.backends.calls.findLast((c) => c.method === 'poster.Upload')?.caller).toEqual({ user_id: 7, groups: ['editor'], may_write: true })
    expect(seen.header).toEqual({
      object_type: 'image', file_name: 'big photo.png',
      mime_type: 'image/png', declared_size: -1, writable_types: ['image', 'b_e_file'],
    })
    const body = JSON.parse(answer.body.toString())
    expect(body).toMatchObject({ api: 'files', method: 'post', params: [], url: `http://127.0.0.1:${target.port}/files/image/big%20photo.png` })
    expect(body.data).toEqual({
      upload_token: expect.stringMatching(/^upload-/), expires_in: expect.any(Number), name: 'big photo.png',
      mime_type: 'image/png', file_size: 8 * MiB, width: 640, height: 480,
    })
    expect(body.data.expires_in).toBeGreaterThan(1790)
    expect(body.data.expires_in).toBeLessThanOrEqual(1800)
    expect(answer.headers['cache-control']).toBe('no-store')
    expect(answer.headers.etag).toBeUndefined()
  })

  it('when Content-Length is sent, then it is the declared size; a file without dimensions has no width or height', async () => {
    const bytes = fakeBytes(300_000, 2)
    const res = await fetch(`http://${target.host}:${target.port}/files/b_e_file/report.pdf?access_token=${bearer.slice(7)}`, {
      method: 'POST', headers: { 'content-type': 'application/pdf' }, body: bytes,
    })
    expect(res.status).toBe(200)
    const { data } = await res.json() as { data: Record<string, unknown> }
    expect(data).toEqual({ upload_token: expect.any(String), expires_in: expect.any(Number), name: 'report.pdf', mime_type: 'application/pdf', file_size: 300_000 })
    expect(lastUpload().header).toMatchObject({ declared_size: 300_000, mime_type: 'application/pdf', object_type: 'b_e_file' })
    expect(lastUpload().sha256.digest('hex')).toBe(createHash('sha256').update(bytes).digest('hex'))
  })

  it.each([
    ['application/json', '{"this is": not JSON and never parsed'],
    ['text/plain', '{"data": {"id": 3}}'],
    ['application/x-www-form-urlencoded', 'a=1&b=2'],
  ])('when the Content-Type is %s, then the body is streamed as bytes, never parsed, past the JSON body limit', async (type, text) => {
    const body = Buffer.concat([Buffer.from(text), Buffer.alloc(2 * MiB, 0x20)]) // over bodyLimit (1 MiB)
    const res = await fetch(`http://${target.host}:${target.port}/files/b_e_file/data.json`, {
      method: 'POST', headers: { authorization: bearer, 'content-type': type }, body,
    })
    expect(res.status).toBe(200)
    expect(lastUpload().header?.mime_type).toBe(type)
    expect(lastUpload().bytes).toBe(body.length)
    expect(lastUpload().sha256.digest('hex')).toBe(createHash('sha256').update(body).digest('hex'))
  })

  it('when there is no Content-Type, then the poster service gets an empty mime_type and decides', async () => {
    const upload = openUpload(target, '/files/image/x.png', { authorization: bearer })
    await upload.send(Buffer.from('abc'), 1)
    upload.req.end()
    expect((await readAnswer(await upload.response)).status).toBe(200)
    expect(lastUpload().header?.mime_type).toBe('')
  })

  it('when there is no token, then 401 before the poster service is asked, and the unread body closes the connection', async () => {
    const upload = openUpload(target, '/files/image/x.png', { 'content-type': 'image/png' })
    await upload.send(Buffer.alloc(CHUNK), 4)
    const answer = await readAnswer(await upload.response)
    expect(answer.status).toBe(401)
    expect(answer.headers['www-authenticate']).toBe('Bearer realm="content-objects"')
    expect(answer.headers.connection).toBe('close')
    expect(JSON.parse(answer.body.toString()).error).toMatchObject({ status: 401, code: 'AUTHENTICATION_REQUIRED' })
    expect(uploadCalls()).toBe(0)
    await upload.closed
  })

  it('when the body has a Content-Encoding, then 415 naming it, before the poster service is asked, and the unread body closes the connection', async () => {
    const upload = openUpload(target, '/files/image/x.png', { authorization: bearer, 'content-type': 'image/png', 'content-encoding': 'gzip' })
    await upload.send(Buffer.alloc(CHUNK), 4)
    const answer = await readAnswer(await upload.response)
    expect(answer.status).toBe(415)
    expect(answer.headers['accept-encoding']).toBe('identity')
    expect(answer.headers.connection).toBe('close')
    expect(JSON.parse(answer.body.toString()).error).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('"gzip"') })
    expect(uploadCalls()).toBe(0)
    await upload.closed
  })

  it('when the token is invalid, then 401 TOKEN_INVALID', async () => {
    const res = await fetch(`http://${target.host}:${target.port}/files/image/x.png`, { method: 'POST', headers: { authorization: 'Bearer nope' }, body: 'x' })
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ error: { code: 'TOKEN_INVALID' } })
  })

  it('when the poster service refuses midway (413), then the answer comes before the client finished and the connection is closed', async () => {
    gw.backends.posterFake.maxBytes = 256 * 1024
    const upload = openUpload(target, '/files/image/huge.png', { authorization: bearer, 'content-type': 'image/png' })
    const total = 128 * CHUNK
    // a client that keeps sending until it sees the answer
    const sending = upload.send(Buffer.alloc(CHUNK, 7), 128, 2)
    const res = await upload.response
    const sentWhenAnswered = upload.sent()
    const answer = await readAnswer(res)
    await sending
    await upload.closed
    expect(answer.status).toBe(413)
    expect(answer.headers.connection).toBe('close')
    expect(JSON.parse(answer.body.toString()).error).toMatchObject({ status: 413, code: 'UPLOAD_MAX_FILESIZE_EXCEEDED', details: { max_bytes: 256 * 1024 } })
    expect(sentWhenAnswered).toBeLessThan(total / 2)
    expect(upload.sent()).toBeLessThan(total)
    expect(lastUpload().bytes).toBeLessThan(total / 2)
  })

  it('when the declared size is over the limit, then 413 before any byte is sent', async () => {
    gw.backends.posterFake.maxBytes = 1000
    const upload = openUpload(target, '/files/image/huge.png', { authorization: bearer, 'content-type': 'image/png', 'content-length': 50 * MiB })
    upload.req.flushHeaders()
    const answer = await readAnswer(await upload.response)
    expect(upload.sent()).toBe(0)
    expect(answer.status).toBe(413)
    expect(answer.headers.connection).toBe('close')
    await upload.closed
  })

  it('when the client aborts midway, then the Upload call is cancelled', async () => {
    let cancelled: (() => void) | undefined
    const sawCancel = new Promise<void>((resolve) => { cancelled = resolve })
    const original = gw.backends.poster.Upload
    gw.backends.poster.Upload = clientStreamHandler<v1.UploadPart__Output, v1.UploadReceipt>('Upload', async (parts, signal) => {
      signal.addEventListener('abort', () => cancelled?.())
      for await (const _ of parts) { /* read until the end that never comes */ }
      throw new DomainError('UPLOAD_EMPTY', 'unexpected end')
    }, createLogger({ service: 'test', level: 'silent' }))
    try {
      const upload = openUpload(target, '/files/image/x.png', { authorization: bearer, 'content-type': 'image/png' })
      await upload.send(Buffer.alloc(CHUNK), 4)
      await vi.waitFor(() => expect(uploadCalls()).toBe(1))
      upload.req.destroy()
      // promptly, not when the stream's deadline (10 s here) passes
      await Promise.race([sawCancel, new Promise((_resolve, reject) => setTimeout(() => reject(new Error('not cancelled within 2 s')), 2_000))])
    } finally {
      gw.backends.poster.Upload = original
    }
    // the gateway is still serving
    expect((await fetch(`http://${target.host}:${target.port}/objects/3`)).status).toBe(200)
  })

  it('when an upload succeeds, then the read cache is kept (an upload changes no object)', async () => {
    const getCalls = () => gw.backends.calls.filter((c) => c.method === 'objects.GetObject').length
    const read = () => fetch(`http://${target.host}:${target.port}/objects/3`).then((r) => r.text())
    await read()
    const before = getCalls()
    await read()
    expect(getCalls()).toBe(before)
    const res = await fetch(`http://${target.host}:${target.port}/files/image/a.png`, { method: 'POST', headers: { authorization: bearer, 'content-type': 'image/png' }, body: 'png' })
    expect(res.status).toBe(200)
    await read()
    expect(getCalls()).toBe(before)
  })

  it.each([
    ['/files/image', 400, 'MISSING_PARAMETER'],
    ['/files/image/a.png/b', 400, 'SURPLUS_PATH_SEGMENTS'],
    ['/files/image/a.png?overwrite=1', 400, 'UNKNOWN_QUERY_PARAMETER'],
    ['/files/image/%E0%A4%A', 400, 'MALFORMED_REQUEST'],
  ])('when POST %s, then %i %s without reading the body', async (path, status, code) => {
    const upload = openUpload(target, path, { authorization: bearer, 'content-type': 'image/png' })
    await upload.send(Buffer.alloc(CHUNK), 2)
    const answer = await readAnswer(await upload.response)
    expect(answer.status).toBe(status)
    expect(JSON.parse(answer.body.toString()).error.code).toBe(code)
    expect(answer.headers.connection).toBe('close')
    expect(uploadCalls()).toBe(0)
    await upload.closed
  })
})

describe('the files endpoint in the configuration', () => {
  let blacklisted: FastifyInstance
  beforeAll(async () => { blacklisted = await buildTestApp(gw.backends, { routing: { blacklist: ['files'] } }) })
  afterAll(async () => { await blacklisted.close() })

  it('when blacklisted, then 405 with an empty Allow, hidden from the listing, its body never parsed', async () => {
    const res = await blacklisted.inject({
      method: 'POST', url: '/files/image/a.png', headers: { authorization: bearer, 'content-type': 'application/json' }, payload: Buffer.alloc(2 * MiB, 0x7b),
    })
    expect(res.statusCode).toBe(405)
    expect(res.headers.allow).toBe('')
    expect(res.json().error.code).toBe('METHOD_NOT_ALLOWED')
    expect('files' in (await blacklisted.inject({ method: 'GET', url: '/' })).json().data).toBe(false)
    expect(uploadCalls()).toBe(0)
  })

  it('when another method is used, then 405 with Allow: POST', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH'] as const) {
      const res = await gw.app.inject({ method, url: '/files/image/a.png', headers: { authorization: bearer } })
      expect(res.statusCode).toBe(405)
      expect(res.headers.allow).toBe('POST')
    }
  })
})
