import { describe, expect, it } from 'vitest'
import { ApiError, createClient, type FetchLike, memoryStorage } from '../src/index.js'

/** A fetch that answers each request with the next scripted answer, noting what was asked. */
function scripted (answers: (() => Response)[]) {
  const asked: { url: string, init: RequestInit }[] = []
  const fetch: FetchLike = async (url, init) => {
    asked.push({ url, init })
    const next = answers.shift()
    if (!next) throw new Error(`unexpected request ${init.method} ${url}`)
    return next()
  }
  return { fetch, asked }
}
const json = (status: number, body: unknown) => () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
const failure = async (promise: Promise<unknown>) => promise.then(() => { throw new Error('resolved') }, (err: unknown) => err)

describe('answers the client does not trust', () => {
  it('an error body becomes an ApiError with its fields; anything else an UNEXPECTED_RESPONSE', async () => {
    const { fetch } = scripted([
      json(403, { error: { status: 403, code: 'PERMISSION_DENIED', message: 'no', details: { group: 'editor' }, more_info: 'https://x/docs/errors#PERMISSION_DENIED', url: 'https://x/objects/1' } }),
      () => new Response('<html>bad gateway</html>', { status: 502 }),
      json(500, { error: 'flat string' }),
      () => new Response('not json', { status: 200 }),
      json(200, { objects: [] }),
      json(200, { data: { objects: 'many' }, paging: {} }),
    ])
    const client = createClient({ baseUrl: 'https://x/', fetch })
    expect(await failure(client.objects.get(1))).toMatchObject({
      name: 'ApiError', status: 403, code: 'PERMISSION_DENIED', message: 'no', details: { group: 'editor' }, moreInfo: 'https://x/docs/errors#PERMISSION_DENIED', url: 'https://x/objects/1',
    })
    const proxy = await failure(client.objects.get(1))
    expect(proxy).toBeInstanceOf(ApiError)
    expect(proxy).toMatchObject({ status: 502, code: 'UNEXPECTED_RESPONSE', details: '<html>bad gateway</html>', url: 'https://x/objects/1' })
    expect(await failure(client.objects.get(1))).toMatchObject({ status: 500, code: 'UNEXPECTED_RESPONSE' })
    expect(await failure(client.objects.get(1))).toMatchObject({ status: 200, code: 'UNEXPECTED_RESPONSE' })
    expect(await failure(client.objects.get(1))).toMatchObject({ status: 200, code: 'UNEXPECTED_RESPONSE' })
    expect(await failure(client.objects.list().all())).toMatchObject({ code: 'UNEXPECTED_RESPONSE' })
  })

  it('retries an expired token once only: a second TOKEN_EXPIRED after the refresh is the answer', async () => {
    const expired = json(401, { error: { status: 401, code: 'TOKEN_EXPIRED', message: 'expired', details: null, more_info: null, url: '' } })
    const { fetch, asked } = scripted([
      expired,
      json(200, { api: 'auth', data: { access_token: 'a2', expires_in: 600, refresh_token: 'r2' }, method: 'post', params: [], url: '' }),
      expired,
    ])
    const client = createClient({ baseUrl: 'https://x', fetch, storage: memoryStorage({ accessToken: 'a1', refreshToken: 'r1', expiresAt: 0 }) })
    expect(await failure(client.objects.get('a b'))).toMatchObject({ status: 401, code: 'TOKEN_EXPIRED' })
    expect(asked.map((a) => `${a.init.method} ${a.url} ${(a.init.headers as Record<string, string>).authorization ?? '-'}`)).toEqual([
      'GET https://x/objects/a%20b Bearer a1', 'POST https://x/auth -', 'GET https://x/objects/a%20b Bearer a2',
    ])
  })

  it('does not send a stream body twice: an upload from a stream meets an expired token as an error', async () => {
    const expired = json(401, { error: { status: 401, code: 'TOKEN_EXPIRED', message: 'expired', details: null, more_info: null, url: '' } })
    const { fetch, asked } = scripted([expired])
    const client = createClient({ baseUrl: 'https://x', fetch, storage: memoryStorage({ accessToken: 'a1', refreshToken: 'r1', expiresAt: 0 }) })
    const body = new ReadableStream<Uint8Array>({ start (c) { c.enqueue(new Uint8Array([1])); c.close() } })
    expect(await failure(client.uploads.upload({ objectType: 'image', fileName: 'x.png', contentType: 'image/png', body }))).toMatchObject({ code: 'TOKEN_EXPIRED' })
    expect(asked).toHaveLength(1)
    expect(asked[0]?.url).toBe('https://x/files/image/x.png')
  })

  it('a call whose expired token was already replaced by a concurrent refresh retries without rotating again', async () => {
    const expired = { error: { status: 401, code: 'TOKEN_EXPIRED', message: 'expired', details: null, more_info: null, url: '' } }
    let refreshed: () => void = () => {}
    const afterRefresh = new Promise<void>((resolve) => { refreshed = resolve })
    let staleCalls = 0
    let refreshes = 0
    const fetch: FetchLike = async (url, init) => {
      const auth = (init.headers as Record<string, string>).authorization
      if (init.method === 'POST') {
        refreshes++
        setTimeout(refreshed, 10)
        return json(200, { api: 'auth', data: { access_token: 'a2', expires_in: 600, refresh_token: 'r2' }, method: 'post', params: [], url: '' })()
      }
      if (auth === 'Bearer a1') {
        // the second call's answer arrives only after the first call's refresh
        if (staleCalls++ === 1) await afterRefresh
        return json(401, expired)()
      }
      const id = Number(new URL(url).pathname.split('/').at(-1))
      return json(200, { api: 'objects', data: { object: { id, object_type: 'document' } }, method: 'get', params: [], url })()
    }
    const client = createClient({ baseUrl: 'https://x', fetch, storage: memoryStorage({ accessToken: 'a1', refreshToken: 'r1', expiresAt: 0 }) })
    const [one, two] = await Promise.all([client.objects.get(1), client.objects.get(2)])
    expect([one.id, two.id]).toEqual([1, 2])
    expect(refreshes).toBe(1)
  })
})
