import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { previewKey } from '@content/platform'
import { admin, adminWith, expectError, login, startSeeded, type SeededSystem } from './support/seeded.js'
import { http } from './support/system.js'
import { must } from './support/must.js'

/** Each admin tool run starts a process: a test that runs several needs more than the default minute. */
const ADMIN_RUNS = 240_000

/**
 * Decisions §16, what a preview URL may show and for how long: it reads as its writer only while that
 * writer may (not disabled, not deleted, still allowed to write the object); what it shows of other objects
 * is what the public sees; it names one object, and any other path is 404; a token whose claims are not of
 * the signed shape is a 401 even with a good signature.
 */
describe('preview URLs hold only while their writer may (decisions §16)', () => {
  let s: SeededSystem
  let draft: number
  let narrowed: number
  const id = (ref: string) => must(s.refs[ref])
  const post = (path: string, role: 'admin' | 'editor', data?: unknown) =>
    http(s.system.base, 'POST', path, { headers: { authorization: `Bearer ${s.tokens[role]}` }, ...(data === undefined ? {} : { body: { data } }) })
  const fetchUrl = (url: string) => { const u = new URL(url); return http(u.origin, 'GET', u.pathname + u.search) }

  beforeAll(async () => {
    s = await startSeeded()
    const made = await post('/objects?status=draft', 'editor', { object_type: 'document', title: 'Draft note', parents: [id('news')] })
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    draft = made.body.data.object.id
    const admins = await post('/objects?status=draft', 'admin', { object_type: 'document', title: 'Admins draft', parents: [id('news')] })
    narrowed = admins.body.data.object.id
    adminRun('permissions', 'set', String(narrowed), '--write', 'administrator')
  }, ADMIN_RUNS)
  afterAll(async () => { await s?.stop() })

  /** A user of `groups` made with the admin tool, and its access token. */
  async function newUser (username: string, groups: string): Promise<string> {
    const password = `${username}-secret-pass-9`
    const made = adminWith(s.system, { input: `${password}\n` }, 'users', 'add', username, '--groups', groups)
    expect(made.status, made.stderr).toBe(0)
    return (await login(s.system.base, username, password)).access_token
  }
  const previewAs = async (token: string, objectId: number | string) => {
    const made = await http(s.system.base, 'POST', `/objects/${objectId}/preview`, { headers: { authorization: `Bearer ${token}` } })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    return made.body.data.preview_url as string
  }
  function adminRun (...args: string[]) {
    const run = admin(s.system, ...args)
    expect(run.status, run.stderr).toBe(0)
  }

  it('a preview URL stops reading once its writer is disabled (also when enabled again) or deleted', { timeout: ADMIN_RUNS }, async () => {
    const [pia, dan] = [await newUser('pia', 'editor'), await newUser('dan', 'editor')]
    const [ofPia, ofDan] = [await previewAs(pia, draft), await previewAs(dan, draft)]
    for (const url of [ofPia, ofDan]) expect((await fetchUrl(url)).status).toBe(200)
    adminRun('users', 'disable', 'pia')
    expectError(await fetchUrl(ofPia), 401, 'PREVIEW_TOKEN_INVALID')
    // enabling again does not bring back what was made before: the disabling ended the writer's sessions
    adminRun('users', 'enable', 'pia')
    expectError(await fetchUrl(ofPia), 401, 'PREVIEW_TOKEN_INVALID')
    adminRun('users', 'delete', 'dan')
    expectError(await fetchUrl(ofDan), 401, 'PREVIEW_TOKEN_INVALID')
    // a new login of the enabled writer previews again
    const again = await login(s.system.base, 'pia', 'pia-secret-pass-9')
    expect((await fetchUrl(await previewAs(again.access_token, draft))).status).toBe(200)
  })

  it('a preview URL reads only while its writer may still write the object', { timeout: ADMIN_RUNS }, async () => {
    const lou = await newUser('lou', 'editor')
    const made = await post('/objects?status=draft', 'admin', { object_type: 'document', title: 'Lou draft', parents: [id('news')] })
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    const object = made.body.data.object.id as number
    const url = await previewAs(lou, object)
    expect((await fetchUrl(url)).body.data.object.title).toBe('Lou draft')
    adminRun('permissions', 'set', String(object), '--write', 'administrator')
    const refused = await fetchUrl(url)
    expectError(refused, 401, 'PREVIEW_TOKEN_INVALID')
    expect(JSON.stringify(refused.body)).not.toContain('Lou draft')
    adminRun('permissions', 'set', String(object), '--write', 'editor')
    expect((await fetchUrl(url)).status).toBe(200)
  })

  it('what a preview includes and counts is what the public sees: no protected or draft related object', async () => {
    const made = await post('/objects?status=draft', 'admin', {
      object_type: 'document', title: 'Preview with relations', parents: [id('news')],
      relations: { seealso: [{ related_id: id('howto') }, { related_id: id('members-doc') }, { related_id: draft }], poster: [{ related_id: id('cover') }] },
    })
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    const object = made.body.data.object.id as number
    // the writer itself sees all three
    expect((await s.get(`/objects/${object}?status=draft`, 'admin')).body.data.object.relations.seealso.count).toBe(3)
    const read = await fetchUrl(`${await previewAs(s.tokens.admin, object)}&include=seealso,poster.poster_of`)
    expect(read.status, JSON.stringify(read.body)).toBe(200)
    const relations = read.body.data.object.relations
    expect(relations.seealso.count).toBe(1)
    expect(relations.seealso.objects.map((o: { id: number }) => o.id)).toEqual([id('howto')])
    expect(relations.poster.objects.map((o: { id: number }) => o.id)).toEqual([id('cover')])
    const text = JSON.stringify(read.body)
    for (const hidden of ['Members only', 'Draft note', `"id":${draft},`, `"id":${id('members-doc')},`]) expect(text).not.toContain(hidden)
  })

  it('a preview token names one object: any other path is 404, whether that object exists or not', async () => {
    const url = new URL(await previewAs(s.tokens.editor, draft))
    const token = encodeURIComponent(url.searchParams.get('token') ?? '')
    const nickname = (await fetchUrl(url.href)).body.data.object.nickname as string
    expect((await http(s.system.base, 'GET', `/objects/${nickname}/preview?token=${token}`)).body.data.object.id).toBe(draft)
    for (const other of ['welcome', 'no-such-nickname', String(id('welcome')), '999999', 'members-only', String(narrowed)]) {
      expectError(await http(s.system.base, 'GET', `/objects/${other}/preview?token=${token}`), 404, 'OBJECT_NOT_FOUND')
    }
  })

  it('a token signed with the deployment\'s key but holding claims of another shape is a 401, never a 500', async () => {
    const key = previewKey(readFileSync(join(s.system.dataDir, 'service-secret'), 'utf8').trim())
    const signed = (claims: unknown) => {
      const body = Buffer.from(typeof claims === 'string' ? claims : JSON.stringify(claims)).toString('base64url')
      return encodeURIComponent(`${body}.${createHmac('sha256', key).update(body).digest('base64url')}`)
    }
    const later = Date.now() + 60_000
    // the well-formed one proves the key is the deployment's: only the shape differs below
    expect((await http(s.system.base, 'GET', `/objects/${draft}/preview?token=${signed([draft, 1, ['administrator'], Date.now(), later])}`)).status).toBe(200)
    for (const claims of [{ object_id: draft }, 7, null, 'not json {', [draft, 1, 'administrator', Date.now(), later], [draft, '1', ['administrator'], 0, later],
      [draft, 1, [5], 0, later], [draft, 1, ['administrator'], 0, String(later)], [draft, 1, ['administrator'], true, later], [draft, 1, ['administrator'], later]]) {
      expectError(await http(s.system.base, 'GET', `/objects/${draft}/preview?token=${signed(claims)}`), 401, 'PREVIEW_TOKEN_INVALID')
    }
  })
})
