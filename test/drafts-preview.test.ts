import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, expectError, idsOf, startSeeded, type Role, type SeededSystem } from './support/seeded.js'
import { http, removeDir, type Reply } from './support/system.js'
import { must } from './support/must.js'

/** PREVIEW_TTL of this system, seconds: short, so that one test sees a URL expire. */
const TTL = 4

/**
 * Decisions §16, drafts and preview end to end: `status=draft` shows a writer the drafts it may write
 * (single read, lists, totals), and nobody else; such answers never reach the shared read cache; a
 * preview URL reads the object as its writer would, with no token, until it expires.
 */
describe('drafts and preview (decisions §16)', () => {
  let s: SeededSystem
  let draft: number
  let narrowed: number
  const id = (ref: string) => must(s.refs[ref])
  const as = (role: Exclude<Role, 'anonymous'>) => ({ authorization: `Bearer ${s.tokens[role]}` })
  const post = (path: string, role?: Exclude<Role, 'anonymous'>, data?: unknown) =>
    http(s.system.base, 'POST', path, { headers: role ? as(role) : {}, ...(data === undefined ? {} : { body: { data } }) })
  const fetchUrl = (url: string) => { const u = new URL(url); return http(u.origin, 'GET', u.pathname + u.search) }

  beforeAll(async () => {
    s = await startSeeded({ PREVIEW_TTL: String(TTL) })
    // drafts from a fixtures file, below the seeded `news` (a write makes one with ?status=draft: below)
    const dir = mkdtempSync(join(tmpdir(), 'content-drafts-'))
    try {
      const file = join(dir, 'drafts.json')
      writeFileSync(file, JSON.stringify({
        objects: [
          { ref: 'draft', object_type: 'document', title: 'Draft note', status: 'draft', parents: [id('news')] },
          { ref: 'narrowed', object_type: 'document', title: 'Admins draft', status: 'draft', parents: [id('news')], permissions: { write: ['administrator'] } },
        ],
      }))
      const run = admin(s.system, 'seed', file)
      expect(run.status, run.stderr).toBe(0)
      const refs = JSON.parse(run.lastLine) as Record<string, number>
      draft = must(refs.draft)
      narrowed = must(refs.narrowed)
    } finally {
      removeDir(dir)
    }
  })
  afterAll(async () => { await s?.stop() })

  const noStore = (res: Reply) => {
    expect(res.headers.get('cache-control')).toBe('private, no-store')
    expect(res.headers.get('etag')).toBeNull()
  }

  it('a writer reads its draft with status=draft only; others never', async () => {
    expectError(await s.get(`/objects/${draft}`, 'editor'), 404, 'OBJECT_NOT_FOUND')
    const res = await s.get(`/objects/${draft}?status=draft`, 'editor')
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.data.object).toMatchObject({ id: draft, title: 'Draft note' })
    noStore(res)
    for (const role of ['anonymous', 'member', 'outsider'] as const) {
      expectError(await s.get(`/objects/${draft}?status=draft`, role), 404, 'OBJECT_NOT_FOUND')
    }
  })

  it('lists include the drafts a writer may write, with their totals', async () => {
    for (const path of ['/objects', '/objects/news/children', '/objects/news/contents', '/objects/publication/descendants']) {
      const published = await s.get(`${path}?page_size=100`, 'editor')
      const withDrafts = await s.get(`${path}?page_size=100&status=draft`, 'editor')
      expect(withDrafts.status, path).toBe(200)
      noStore(withDrafts)
      expect(idsOf(published)).not.toContain(draft)
      expect(idsOf(withDrafts), path).toContain(draft)
      expect(idsOf(withDrafts), path).not.toContain(narrowed)
      expect(withDrafts.body.paging.total, path).toBe(published.body.paging.total + 1)
      const byAdmin = await s.get(`${path}?page_size=100&status=draft`, 'admin')
      expect(idsOf(byAdmin), path).toEqual(expect.arrayContaining([draft, narrowed]))
      for (const role of ['anonymous', 'member'] as const) {
        const res = await s.get(`${path}?page_size=100&status=draft`, role)
        expect(idsOf(res), `${path} as ${role}`).not.toContain(draft)
        expect(res.body.paging.total).toBe((await s.get(`${path}?page_size=100`, role)).body.paging.total)
      }
    }
    // the child counts of a section follow the same visibility
    const news = (role: Role, q: string) => s.get(`/objects/news${q}`, role)
    const counted = (res: Reply) => JSON.stringify(res.body.data.object.children ?? null)
    expect(counted(await news('editor', '?status=draft'))).not.toBe(counted(await news('editor', '')))
  })

  it('write groups narrow the drafts a writer sees', async () => {
    expectError(await s.get(`/objects/${narrowed}?status=draft`, 'editor'), 404, 'OBJECT_NOT_FOUND')
    expect((await s.get(`/objects/${narrowed}?status=draft`, 'admin')).status).toBe(200)
  })

  it('another status value is a 400 naming status', async () => {
    for (const q of ['status=on', 'status=', 'status=draft,on']) {
      const res = await s.get(`/objects/news/children?${q}`, 'editor')
      expectError(res, 400, 'INVALID_PARAMETER')
      expect(res.body.error.details.parameter).toBe('status')
    }
    expectError(await s.get(`/objects/${draft}?status=off`), 400, 'INVALID_PARAMETER')
  })

  it('the read cache never serves a draft answer to someone else', async () => {
    const path = '/objects/news/children?page_size=100'
    // read twice: a second answer from the cache would lose `no-store` and gain an ETag
    for (let i = 0; i < 2; i++) {
      const res = await s.get(`${path}&status=draft`, 'editor')
      expect(idsOf(res)).toContain(draft)
      noStore(res)
    }
    expect(idsOf(await s.get(path))).not.toContain(draft)
    expect(idsOf(await s.get(`${path}&status=draft`))).not.toContain(draft)
    expect(idsOf(await s.get(path, 'editor'))).not.toContain(draft)
  })

  it('a preview URL reads the draft with no token, never cached; tampered or foreign tokens are refused', async () => {
    const made = await post(`/objects/${draft}/preview`, 'editor')
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    expect(made.body.data).toEqual({ preview_url: expect.any(String), expires: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}$/) })
    const url = made.body.data.preview_url as string
    expect(url.startsWith(`${s.system.base}/objects/${draft}/preview?token=`)).toBe(true)
    const read = await fetchUrl(url)
    expect(read.status, JSON.stringify(read.body)).toBe(200)
    expect(read.body.data.object).toMatchObject({ id: draft, title: 'Draft note' })
    noStore(read)
    expect((await fetchUrl(`${url}&fields=title`)).body.data.object).toEqual({ id: draft, object_type: 'document', title: 'Draft note' })
    const token = new URL(url).searchParams.get('token') ?? ''
    const flipped = `${token.slice(0, 5)}${token[5] === 'A' ? 'B' : 'A'}${token.slice(6)}`
    expectError(await http(s.system.base, 'GET', `/objects/${draft}/preview?token=${encodeURIComponent(flipped)}`), 401, 'PREVIEW_TOKEN_INVALID')
    expectError(await http(s.system.base, 'GET', `/objects/${draft}/preview`), 401, 'PREVIEW_TOKEN_INVALID')
    // the draft stays hidden to everyone else
    expectError(await s.get(`/objects/${draft}`), 404, 'OBJECT_NOT_FOUND')
  })

  it('asking for a preview needs write rights on the object', async () => {
    expectError(await post(`/objects/${draft}/preview`), 401, 'AUTHENTICATION_REQUIRED')
    expectError(await post(`/objects/${draft}/preview`, 'member'), 403, 'PERMISSION_DENIED')
    // a draft exists only for its writers: one out of the editor's reach is as absent as an id that never was
    expectError(await post(`/objects/${narrowed}/preview`, 'editor'), 404, 'OBJECT_NOT_FOUND')
    expectError(await post('/objects/999999/preview', 'editor'), 404, 'OBJECT_NOT_FOUND')
    // a caller in no writing group is refused before the object is looked at: the same for any id
    expectError(await post('/objects/999999/preview', 'member'), 403, 'PERMISSION_DENIED')
    expectError(await post(`/objects/${narrowed}/preview`, 'member'), 403, 'PERMISSION_DENIED')
  })

  it('a preview of a protected object reads it with the writer\'s groups', async () => {
    expectError(await s.get('/objects/members-only'), 401, 'OBJECT_PROTECTED')
    const made = await post('/objects/members-only/preview', 'admin')
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    const read = await fetchUrl(made.body.data.preview_url)
    expect(read.status, JSON.stringify(read.body)).toBe(200)
    expect(read.body.data.object.id).toBe(id('members-doc'))
    noStore(read)
  })

  it('an editor writes a draft with ?status=draft, previews it without logging in, then publishes it with ?status=on', async () => {
    const made = await post('/objects?status=draft', 'editor', { object_type: 'document', title: 'Written as a draft', parents: [id('news')] })
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    const written = made.body.data.object.id as number
    expectError(await s.get(`/objects/${written}`), 404, 'OBJECT_NOT_FOUND')
    expect(idsOf(await s.get('/objects/news/children?page_size=100'))).not.toContain(written)
    expect((await s.get(`/objects/${written}?status=draft`, 'editor')).body.data.object.title).toBe('Written as a draft')
    const preview = await post(`/objects/${written}/preview`, 'editor')
    const read = await fetchUrl(preview.body.data.preview_url)
    expect(read.status, JSON.stringify(read.body)).toBe(200)
    expect(read.body.data.object).toMatchObject({ id: written, title: 'Written as a draft' })
    // an update keeps the status unless told; ?status=on publishes, ?status=off withdraws
    expect((await post('/objects', 'editor', { id: written, description: 'still a draft' })).status).toBe(200)
    expectError(await s.get(`/objects/${written}`), 404, 'OBJECT_NOT_FOUND')
    expect((await post('/objects?status=on', 'editor', { id: written })).status).toBe(200)
    expect((await s.get(`/objects/${written}`)).body.data.object.description).toBe('still a draft')
    expect(idsOf(await s.get('/objects/news/children?page_size=100'))).toContain(written)
    expect((await post('/objects?status=off', 'editor', { id: written })).status).toBe(200)
    expectError(await s.get(`/objects/${written}`), 404, 'OBJECT_NOT_FOUND')
    // another value is a 400 naming status; the body's status stays server-owned (decisions §4)
    const bad = await post('/objects?status=published', 'editor', { id: written })
    expectError(bad, 400, 'INVALID_PARAMETER')
    expect(bad.body.error.details).toMatchObject({ parameter: 'status' })
    expectError(await post('/objects', 'editor', { id: written, status: 'on' }), 400, 'VALIDATION_FAILED')
    expectError(await post('/objects?status=on', undefined, { id: written }), 401, 'AUTHENTICATION_REQUIRED')
    expectError(await post('/objects?status=on', 'member', { id: written }), 403, 'PERMISSION_DENIED')
  })

  it('a preview URL expires', async () => {
    const made = await post(`/objects/${draft}/preview`, 'editor')
    expect((await fetchUrl(made.body.data.preview_url)).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, TTL * 1000 + 500))
    expectError(await fetchUrl(made.body.data.preview_url), 401, 'PREVIEW_TOKEN_EXPIRED')
  })
})
