import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { png } from '../../../test/support/media.js'
import { ADMIN, removeDir, type RunningSystem, startSystem } from '../../../test/support/system.js'
import { ApiError, type Client, createClient, type FetchLike, memoryStorage, type TokenStorage } from '../src/index.js'

// access tokens live 3 s here, so the client's refresh-and-retry runs for real
const ACCESS_TOKEN_TTL = 3
let system: RunningSystem
let calls: string[]
let storage: TokenStorage
let client: Client
/** A fetch that notes `METHOD /path status` of every request the client makes. */
const noting: FetchLike = async (input, init) => {
  const res = await fetch(input, init)
  calls.push(`${init.method} ${new URL(input).pathname} ${res.status}`)
  return res
}
const expectApiError = async (promise: Promise<unknown>, fields: Partial<ApiError>) => {
  const err = await promise.then(() => undefined, (e: unknown) => e)
  expect(err).toBeInstanceOf(ApiError)
  expect(err).toMatchObject(fields)
  return err as ApiError
}

beforeAll(async () => {
  system = await startSystem({ ACCESS_TOKEN_TTL: String(ACCESS_TOKEN_TTL) })
  calls = []
  storage = memoryStorage()
  client = createClient({ baseUrl: system.base, fetch: noting, storage })
})
afterAll(async () => {
  await system?.stop()
  if (system) removeDir(system.dataDir)
})

describe('@content/client against a running system', () => {
  let publication: number
  let section: number
  const documents: number[] = []

  it('reads anonymously: the endpoint listing and an object by nickname', async () => {
    const endpoints = await client.endpoints()
    expect(endpoints.objects).toBe(`${system.base}/objects`)
    const root = await client.objects.get('publication')
    expect(root).toMatchObject({ object_type: 'area', nickname: 'publication' })
    publication = root.id
    expect(await client.auth.loggedIn()).toBe(false)
  })

  it('turns every error answer into an ApiError with status, code, details and the docs link', async () => {
    const err = await expectApiError(client.auth.login(ADMIN.username, 'wrong'), { status: 401, code: 'LOGIN_FAILED' })
    expect(err.moreInfo).toBe(`${system.base}/docs/errors#LOGIN_FAILED`)
    await expectApiError(client.objects.get(999_999), { status: 404, code: 'OBJECT_NOT_FOUND' })
    await expectApiError(client.objects.list({ page_size: 101 }).first(), { status: 400, code: 'PAGE_SIZE_TOO_LARGE' })
    const bad = await expectApiError(client.objects.list({ filter: { title: { gtx: 'a' } } }).first(), { status: 400, code: 'INVALID_PARAMETER' })
    expect(bad.details).toMatchObject({ parameter: 'filter[title][gtx]' })
    // a write without a login
    await expectApiError(client.objects.create({ object_type: 'document', title: 'x', parents: [publication] }), { status: 401 })
  })

  it('logs in, keeps the tokens in its storage, and knows the user', async () => {
    const tokens = await client.auth.login(ADMIN.username, ADMIN.password)
    expect(tokens.expires_in).toBe(ACCESS_TOKEN_TTL)
    expect(await storage.load()).toMatchObject({ accessToken: tokens.access_token, refreshToken: tokens.refresh_token })
    expect((await client.auth.me()).user.username).toBe(ADMIN.username)
    expect((await client.auth.status()).access_token).toBeTruthy()
  })

  it('creates, reads and updates objects; a repeated Idempotency-Key answers the first result', async () => {
    const created = await client.objects.create({ object_type: 'section', title: 'Client section', parents: [publication] })
    section = created.id
    expect(created).toMatchObject({ object_type: 'section', title: 'Client section', nickname: 'client-section' })
    for (let i = 1; i <= 5; i++) {
      const doc = await client.objects.create({ object_type: 'document', title: `Doc ${i}`, parents: [section] }, { idempotencyKey: `client-doc-${i}` })
      documents.push(doc.id)
    }
    const again = await client.objects.create({ object_type: 'document', title: 'Doc 1', parents: [section] }, { idempotencyKey: 'client-doc-1' })
    expect(again.id).toBe(documents[0])
    const updated = await client.objects.update(documents[0] as number, { description: 'the first' })
    expect(updated).toMatchObject({ id: documents[0], title: 'Doc 1', description: 'the first' })
    expect((await client.objects.get('doc-1', { fields: 'title' }))).toEqual({ id: documents[0], object_type: 'document', title: 'Doc 1' })
  })

  it('walks lists page by page and by cursor, lazily', async () => {
    const children = client.tree.children(section, { page_size: 2 })
    const seen: number[] = []
    for await (const object of children) seen.push(object.id)
    expect(seen).toEqual(documents)
    const pages = []
    for await (const page of children.pages()) pages.push(page.paging)
    expect(pages.map((p) => p.page_count)).toEqual([2, 2, 1])
    expect(pages[0]).toMatchObject({ page: 1, total: 5, total_pages: 3 })

    const byCursor = await client.objects.list({ cursor: true, page_size: 2, count: 'none', filter: { parent: section } }).all()
    expect(byCursor.map((o) => o.id)).toEqual(documents)
    const first = await client.objects.list({ cursor: true, page_size: 2, filter: { parent: section } }).first()
    expect(first.paging.next_cursor).toEqual(expect.any(String))
    // breaking out of the loop stops fetching
    calls.length = 0
    for await (const object of client.objects.list({ page_size: 1, filter: { object_type: 'document', parent: section } })) {
      expect(object.id).toBe(documents[0])
      break
    }
    expect(calls.filter((c) => c.startsWith('GET /objects'))).toHaveLength(1)
    expect(await client.tree.contents(section).all()).toHaveLength(5)
    expect((await client.tree.sections(publication).all()).map((o) => o.id)).toContain(section)
    expect((await client.tree.descendants(publication, { filter: { object_type: 'document' } }).all()).map((o) => o.id)).toEqual(expect.arrayContaining(documents))
    expect((await client.tree.siblings(documents[0] as number).all()).map((o) => o.id)).toEqual(documents.slice(1))
  })

  it('changes the tree: adds a child, reads and sets its priority, removes it', async () => {
    const doc = documents[4] as number
    const saved = await client.tree.addChildren(publication, { child_id: doc })
    expect(saved).toEqual([{ child_id: doc, priority: expect.any(Number) }])
    expect(await client.tree.setPriority(publication, doc, 42)).toBe(42)
    expect(await client.tree.priority(publication, doc)).toBe(42)
    await client.tree.removeChild(publication, doc)
    await expectApiError(client.tree.priority(publication, doc), { status: 404, code: 'CHILD_NOT_FOUND' })
  })

  it('relates objects, lists, changes and removes relations', async () => {
    const [a, b] = documents as [number, number]
    expect(await client.relations.add(a, 'seealso', [{ related_id: b, params: { why: 'same topic' } }])).toEqual([{ related_id: b, priority: 1, params: { why: 'same topic' } }])
    expect((await client.relations.summary(a)).seealso).toEqual({ count: 1, url: `${system.base}/objects/${a}/relations/seealso` })
    const related = await client.relations.list(a, 'seealso').all()
    expect(related).toEqual([expect.objectContaining({ id: b, meta: { relation: { priority: 1, params: { why: 'same topic' } } } })])
    expect(await client.relations.update(a, 'seealso', b, { priority: 3, params: null })).toEqual({ priority: 3, params: null })
    expect(await client.relations.get(b, 'seealso', a)).toMatchObject({ params: null })
    const included = await client.objects.get(a, { include: 'seealso' })
    expect(included.relations?.seealso?.objects?.map((o) => o.id)).toEqual([b])
    await client.relations.remove(a, 'seealso', b)
    await expectApiError(client.relations.get(a, 'seealso', b), { status: 404, code: 'RELATION_NOT_FOUND' })
  })

  it('uploads a file in two steps and refuses bytes that are not what they claim', async () => {
    const bytes = await png(40, 30)
    const image = await client.uploads.create({ objectType: 'image', fileName: 'blue dot.png', contentType: 'image/png', body: bytes }, { title: 'Blue dot', parents: [section] })
    expect(image).toMatchObject({ object_type: 'image', name: 'blue dot.png', mime_type: 'image/png', width: 40, height: 30, file_size: bytes.length })
    const served = await fetch(image.uri as string)
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true)
    const poster = await client.objects.poster(image.id, { width: 20 })
    expect(poster.id).toBe(image.id)
    const other = await png(10, 10)
    const replaced = await client.uploads.replace(image.id, { objectType: 'image', fileName: 'small.png', contentType: 'image/png', body: new Blob([new Uint8Array(other)]) })
    expect(replaced).toMatchObject({ id: image.id, name: 'small.png', width: 10 })
    const token = await client.uploads.upload({ objectType: 'image', fileName: 'x.png', contentType: 'image/png', body: other })
    expect(token.upload_token).toEqual(expect.any(String))
    await expectApiError(client.uploads.upload({ objectType: 'image', fileName: 'fake.png', contentType: 'image/png', body: new TextEncoder().encode('not a png') }), { status: 415, code: 'UPLOAD_TYPE_INVALID' })
  })

  it('trashes, lists the trash, restores and purges', async () => {
    const doc = documents[3] as number
    await client.objects.delete(doc)
    await expectApiError(client.objects.get(doc), { status: 404, code: 'OBJECT_NOT_FOUND' })
    const trashed = await client.trash.list().all()
    expect(trashed.find((o) => o.id === doc)?.meta.trash).toEqual({ deleted: expect.any(String), user_id: expect.any(Number) })
    expect((await client.trash.restore(doc)).id).toBe(doc)
    expect((await client.objects.get(doc)).id).toBe(doc)
    await client.objects.delete(doc)
    await client.trash.purge(doc)
    expect((await client.trash.list().all()).map((o) => o.id)).not.toContain(doc)
    await expectApiError(client.trash.restore(doc), { status: 404 })
  })

  it('lists an object\'s revisions newest first, reads one, and restores it as a new revision', async () => {
    const doc = documents[1] as number
    await client.objects.update(doc, { title: 'Doc 2, revised' })
    const revisions = await client.revisions.list(doc, { page_size: 1 }).all()
    expect(revisions.map((r) => r.data.title)).toEqual(['Doc 2, revised', 'Doc 2'])
    const first = revisions.at(-1)
    if (!first) throw new Error('no revision')
    expect(await client.revisions.get(doc, first.revision)).toEqual(first)
    expect((await client.revisions.restore(doc, first.revision)).title).toBe('Doc 2')
    const newest = (await client.revisions.list(doc).first()).items[0]
    expect(newest?.revision).toBeGreaterThan(revisions[0]?.revision ?? Infinity)
    expect(newest?.changed).toEqual(['title'])
    await expectApiError(client.revisions.get(doc, 999), { status: 404 })
  })

  it('opens streams with single-use tickets: subscribe({ ticket: true }) never sends the token on the stream, and an EventSource URL opens once', async () => {
    expect(await client.changes.ticket()).toEqual({ ticket: expect.stringMatching(/^[A-Za-z0-9_-]{16,}$/), expires_in: 60 })
    const streamRequests: { url: string, authorization: string | undefined }[] = []
    const watching: FetchLike = async (input, init) => {
      if (new URL(input).pathname === '/changes') streamRequests.push({ url: input, authorization: (init.headers as Record<string, string>).authorization })
      return noting(input, init)
    }
    const ticketed = createClient({ baseUrl: system.base, fetch: watching, storage })
    const seen: number[] = []
    const errors: unknown[] = []
    const unsubscribe = ticketed.changes.subscribe({ events: 'object.created' }, (e) => { if ('data' in e) seen.push(e.data.object_id) }, { ticket: true, onError: (e) => errors.push(e) })
    try {
      const until = Date.now() + 10_000
      while (streamRequests.length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50))
      await new Promise((resolve) => setTimeout(resolve, 300))
      const made = await client.objects.create({ object_type: 'document', title: 'Seen through a ticket', parents: [section] })
      while (!seen.includes(made.id) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50))
      expect(seen).toContain(made.id)
    } finally {
      unsubscribe()
    }
    expect(errors).toEqual([])
    expect(streamRequests[0]?.url).toMatch(/[?&]ticket=[A-Za-z0-9_-]{16,}/)
    expect(streamRequests[0]?.authorization).toBeUndefined()

    // what a browser's EventSource is given: the URL opens one stream, then the ticket is used up
    const url = await client.changes.eventSourceUrl({ filter: { parent: 'client-section' } }, { lastEventId: 'garbage' })
    expect(url).toMatch(/\/changes\?.*filter%5Bparent%5D=client-section.*after=garbage.*ticket=/)
    const first = new AbortController()
    const opened = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: first.signal })
    expect(opened.status).toBe(200)
    expect(opened.headers.get('content-type')).toMatch(/^text\/event-stream/)
    first.abort()
    const again = await fetch(url)
    expect(again.status).toBe(401)
    expect((await again.json() as { error: { code: string } }).error.code).toBe('TICKET_INVALID')
  })

  it('refreshes an expired access token once and retries the call, rotating the refresh token', async () => {
    const before = await storage.load()
    await new Promise((resolve) => setTimeout(resolve, (ACCESS_TOKEN_TTL + 1) * 1000))
    calls.length = 0
    const [one, two] = await Promise.all([client.auth.me(), client.objects.get(documents[0] as number)])
    expect(one.user.username).toBe(ADMIN.username)
    expect(two.id).toBe(documents[0])
    // two calls met the expired token; they shared one refresh
    expect(calls.filter((c) => c === 'POST /auth 200')).toHaveLength(1)
    expect(calls.filter((c) => c.endsWith(' 401'))).toHaveLength(2)
    const after = await storage.load()
    expect(after?.refreshToken).not.toBe(before?.refreshToken)
    expect(after?.accessToken).not.toBe(before?.accessToken)
  })

  it('does not refresh on an invalid token, and a refused refresh forgets the login', async () => {
    const tokens = await storage.load()
    const forged = createClient({ baseUrl: system.base, storage: memoryStorage({ accessToken: 'not-a-jwt', refreshToken: tokens?.refreshToken ?? '', expiresAt: 0 }), fetch: noting })
    calls.length = 0
    await expectApiError(forged.objects.get(documents[0] as number), { status: 401, code: 'TOKEN_INVALID' })
    expect(calls).toEqual([`GET /objects/${documents[0]} 401`])
    const stale = memoryStorage({ accessToken: 'x', refreshToken: 'unknown-refresh-token', expiresAt: 0 })
    await expectApiError(createClient({ baseUrl: system.base, storage: stale }).auth.refresh(), { status: 401 })
    expect(await stale.load()).toBeNull()
  })

  it('logs out: revokes the refresh token and forgets the tokens', async () => {
    const tokens = await storage.load()
    await client.auth.logout()
    expect(await client.auth.loggedIn()).toBe(false)
    expect(calls.at(-1)).toMatch(/^DELETE \/auth\/.+ 204$/)
    // the revoked refresh token no longer renews
    const old = memoryStorage(tokens)
    await expectApiError(createClient({ baseUrl: system.base, storage: old }).auth.refresh(), { status: 401 })
    // logging out twice is harmless
    await client.auth.logout()
  })
})
