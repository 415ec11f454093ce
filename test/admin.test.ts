import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminWith } from './support/seeded.js'
import { ADMIN, http, removeDir, startSystem, type RunningSystem } from './support/system.js'

describe('npm run admin against the running system', () => {
  let system: RunningSystem
  let dir: string

  const admin = (...args: string[]) => adminWith(system, {}, ...args)

  function fixtures (name: string, content: unknown): string {
    const file = join(dir, name)
    writeFileSync(file, JSON.stringify(content))
    return file
  }

  async function login (username: string, password: string): Promise<string> {
    const res = await http(system.base, 'POST', '/auth', { body: { username, password } })
    expect(res.status).toBe(200)
    return res.body.data.access_token as string
  }

  beforeAll(async () => {
    // an API key's exchanged token is not reused, so a revocation shows at once
    system = await startSystem({ API_KEY_CACHE_SECONDS: '0' })
    dir = mkdtempSync(join(tmpdir(), 'content-fixtures-'))
  })
  afterAll(async () => {
    await system?.stop()
    if (system) removeDir(system.dataDir)
    if (dir) removeDir(dir)
  })

  it('seed loads groups, users and objects with forward refs; the last line maps every ref to its id', async () => {
    const file = fixtures('site.json', {
      groups: [{ name: 'members', backend_auth: false }],
      users: [{ username: 'alice', password: 'alice-secret-1', groups: ['members'], name: 'Alice', email: 'alice@example.org' }],
      categories: [{ name: 'c1', label: 'Category one' }],
      objects: [
        { ref: 'news', object_type: 'section', title: 'News', parents: ['@publication'] },
        { ref: 'doc1', object_type: 'document', title: 'Hello', nickname: 'hello', status: 'on', parents: ['news'],
          permissions: { read: ['members'], write: ['editor'] },
          relations: { attach: [{ related: 'img1', priority: 1, params: { label: 'x' } }] },
          tags: ['t1'], categories: ['c1'] },
        { ref: 'img1', object_type: 'image', title: 'Picture', parents: ['news'] },
      ],
    })
    const run = admin('seed', file)
    expect(run.status, run.stderr).toBe(0)
    const refs = JSON.parse(run.lastLine)
    expect(Object.keys(refs).sort()).toEqual(['doc1', 'img1', 'news'])
    for (const id of Object.values(refs)) expect(Number.isInteger(id)).toBe(true)

    const news = await http(system.base, 'GET', `/objects/${refs.news}`)
    expect(news.body.data.object).toMatchObject({ object_type: 'section', title: 'News', nickname: 'news' })

    // doc1 is protected: anonymous 401, a member reads it with its relation to the image.
    expect((await http(system.base, 'GET', '/objects/hello')).status).toBe(401)
    const token = await login('alice', 'alice-secret-1')
    const doc = await http(system.base, 'GET', '/objects/hello', { headers: { authorization: `Bearer ${token}` } })
    expect(doc.status).toBe(200)
    expect(doc.body.data.object).toMatchObject({ id: refs.doc1, tags: [{ name: 't1' }], categories: [{ name: 'c1', label: 'Category one' }] })
    expect(doc.body.data.object.relations.attach.count).toBe(1)
  })

  it('a user whose fixtures name a card object sees it in GET /me', async () => {
    const file = fixtures('cards.json', {
      users: [{ username: 'carla', password: 'carla-secret-1', name: 'Carla', card: 'carla-card' }],
      objects: [{ ref: 'carla-card', object_type: 'card', title: 'Carla Rossi', parents: ['@publication'] }],
    })
    const run = admin('seed', file)
    expect(run.status, run.stderr).toBe(0)
    const refs = JSON.parse(run.lastLine)
    const token = await login('carla', 'carla-secret-1')
    const me = await http(system.base, 'GET', '/me', { headers: { authorization: `Bearer ${token}` } })
    expect(me.status).toBe(200)
    expect(me.body.data.user).toMatchObject({ username: 'carla', name: 'Carla' })
    expect(me.body.data.object).toMatchObject({ id: refs['carla-card'], object_type: 'card', title: 'Carla Rossi' })
  })

  it('a bad file is rejected with a clear message and nothing of it is loaded', async () => {
    const file = fixtures('bad.json', {
      groups: [{ name: 'half-loaded-group' }],
      objects: [
        { ref: 'ok', object_type: 'document', title: 'Would be fine', nickname: 'would-be-fine', parents: ['@publication'] },
        { ref: 'broken', object_type: 'document', title: 'Broken', parents: ['no-such-ref'] },
      ],
    })
    const run = admin('seed', file)
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('no-such-ref')
    expect((await http(system.base, 'GET', '/objects/would-be-fine')).status).toBe(404)
    const again = admin('groups', 'add', 'half-loaded-group')
    expect(again.status, again.stderr).toBe(0)
  })

  it('a media object\'s `file`, relative to the fixtures file, is stored and attached; a bad one lists every problem and loads nothing', async () => {
    mkdirSync(join(dir, 'pictures'), { recursive: true })
    const picture = await sharp({ create: { width: 48, height: 32, channels: 3, background: '#336699' } }).png().toBuffer()
    writeFileSync(join(dir, 'pictures', 'blue.png'), picture)
    writeFileSync(join(dir, 'pictures', 'fake.jpg'), 'not a picture')
    const good = fixtures('media.json', {
      objects: [{ ref: 'pic', object_type: 'image', title: 'Blue', nickname: 'blue-picture', parents: ['@publication'], file: 'pictures/blue.png' }],
    })
    const run = admin('seed', good)
    expect(run.status, run.stderr).toBe(0)
    const object = (await http(system.base, 'GET', '/objects/blue-picture')).body.data.object
    expect(object).toMatchObject({ name: 'blue.png', mime_type: 'image/png', file_size: picture.length, width: 48, height: 32 })
    expect(Buffer.from(await (await fetch(object.uri)).arrayBuffer()).equals(picture)).toBe(true)

    const bad = fixtures('media-bad.json', {
      objects: [
        { ref: 'gone', object_type: 'image', title: 'Gone', nickname: 'never-loaded', parents: ['@publication'], file: 'pictures/missing.png' },
        { ref: 'fake', object_type: 'image', title: 'Fake', parents: ['@publication'], file: 'pictures/fake.jpg' },
        { ref: 'doc', object_type: 'document', title: 'Doc', parents: ['@publication'], file: 'pictures/blue.png' },
      ],
    })
    const refused = admin('seed', bad)
    expect(refused.status).toBe(1)
    expect(refused.stderr).toContain('objects.0.file: cannot read')
    expect(refused.stderr).toContain('objects.1.file:')
    expect(refused.stderr).toContain('objects.2.file:')
    expect((await http(system.base, 'GET', '/objects/never-loaded')).status).toBe(404)
  })

  it('a file that is not JSON is rejected before anything is sent', () => {
    const file = join(dir, 'not-json.json')
    writeFileSync(file, '{ nope')
    const run = admin('seed', file)
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('not valid JSON')
  })

  it('groups add and users add create accounts that can log in', async () => {
    expect(admin('groups', 'add', 'writers', '--backend').status).toBe(0)
    // the new password comes from stdin (or a prompt), never from the command line
    const run = adminWith(system, { input: 'bob-secret-22\n' }, 'users', 'add', 'bob', '--groups', 'writers', '--name', 'Bob', '--email', 'bob@example.org')
    expect(run.status, run.stderr).toBe(0)
    const token = await login('bob', 'bob-secret-22')
    const me = await http(system.base, 'GET', '/me', { headers: { authorization: `Bearer ${token}` } })
    expect(me.body.data.user).toMatchObject({ username: 'bob', name: 'Bob', email: 'bob@example.org', groups: ['writers'] })

    // writers was added with --backend: its members may write (decisions §7); members (no backend_auth) may not
    const doc = { data: { object_type: 'document', title: 'By Bob', parents: [1] } }
    const created = await http(system.base, 'POST', '/objects', { body: doc, headers: { authorization: `Bearer ${token}` } })
    expect(created.status).toBe(201)
    const alice = await login('alice', 'alice-secret-1')
    const refused = await http(system.base, 'POST', '/objects', { body: doc, headers: { authorization: `Bearer ${alice}` } })
    expect(refused.status).toBe(403)
    expect(refused.body.error.code).toBe('PERMISSION_DENIED')
    const adminLogin = await http(system.base, 'POST', '/auth', { body: ADMIN })
    expect(adminLogin.status).toBe(200)
  })

  it('permissions set protects an object, and clearing it makes it public again', async () => {
    const file = fixtures('perm.json', { objects: [{ ref: 'p', object_type: 'document', title: 'Soon private', nickname: 'soon-private', parents: ['@publication'] }] })
    expect(admin('seed', file).status).toBe(0)
    expect((await http(system.base, 'GET', '/objects/soon-private')).status).toBe(200)

    const set = admin('permissions', 'set', 'soon-private', '--read', 'members', '--write', 'editor')
    expect(set.status, set.stderr).toBe(0)
    expect((await http(system.base, 'GET', '/objects/soon-private')).status).toBe(401)
    const token = await login('alice', 'alice-secret-1')
    const member = await http(system.base, 'GET', '/objects/soon-private', { headers: { authorization: `Bearer ${token}` } })
    expect(member.body.data.object).toMatchObject({ authorized: true, free_access: false })

    expect(admin('permissions', 'set', 'soon-private').status).toBe(0)
    expect((await http(system.base, 'GET', '/objects/soon-private')).body.data.object.free_access).toBe(true)
  })

  it('permissions set refuses groups that do not exist and objects that do not exist', () => {
    const group = admin('permissions', 'set', 'soon-private', '--read', 'no-such-group')
    expect(group.status).toBe(2)
    expect(group.stderr).toContain('no-such-group')
    expect(admin('permissions', 'set', '987654', '--read', 'members').status).toBe(1)
  })

  it('usage errors exit 2 and a taken username exits 1 with a message', () => {
    expect(admin('users', 'frobnicate').status).toBe(2)
    const taken = adminWith(system, { input: 'another-secret\n' }, 'users', 'add', 'bob')
    expect(taken.status).toBe(1)
    expect(taken.stderr.toLowerCase()).toContain('bob')
    expect(admin('users', 'add', 'carl', '--password', 'on-the-command-line').status).toBe(2)
  })

  it('every command acts as an administrator: without a password, with a wrong one, or as a non-administrator it is refused', async () => {
    const unset = adminWith(system, { env: { ADMIN_PASSWORD: '' } }, 'webhooks', 'list')
    expect(unset.status).toBe(2)
    expect(unset.stderr).toContain('ADMIN_PASSWORD')
    const wrong = adminWith(system, { env: { ADMIN_PASSWORD: 'not-the-password' } }, 'webhooks', 'list')
    expect(wrong.status).toBe(1)
    expect(wrong.stderr).toContain('LOGIN_FAILED')
    const asBob = adminWith(system, { env: { ADMIN_USERNAME: 'bob', ADMIN_PASSWORD: 'bob-secret-22' } }, 'permissions', 'set', 'soon-private')
    expect(asBob.status).toBe(1)
    expect(asBob.stderr).toContain('ADMINISTRATOR_REQUIRED')
  })

  describe('accounts and API keys, as a new administrator manages them', () => {
    const json = (run: { status: number | null, stderr: string, lastLine: string }) => {
      expect(run.status, run.stderr).toBe(0)
      return JSON.parse(run.lastLine)
    }
    const status = async (username: string, password: string) => (await http(system.base, 'POST', '/auth', { body: { username, password } })).status

    it('--help prints the usage on stdout and exits 0; --version prints the version', () => {
      const help = admin('--help')
      expect(help.status).toBe(0)
      expect(help.stdout).toContain('users passwd <username>')
      expect(help.stdout).toContain('keys create --name')
      expect(help.stderr).toBe('')
      const version = admin('--version')
      expect(version.status).toBe(0)
      expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/)
    })

    it('users: add, list, show, passwd (ending earlier logins), disable, enable, delete', async () => {
      const added = json(adminWith(system, { input: 'carol-pass-one\n' }, 'users', 'add', 'carol', '--groups', 'editor', '--name', 'Carol', '--json'))
      expect(added).toMatchObject({ username: 'carol', groups: ['editor'] })
      expect(json(admin('users', 'list', '--json')).map((u: { username: string }) => u.username)).toContain('carol')
      expect(json(admin('users', 'show', 'carol', '--json'))).toMatchObject({ id: added.id, username: 'carol', name: 'Carol', disabled: false, groups: ['editor'] })
      expect(json(admin('groups', 'list', '--json'))).toContainEqual({ name: 'editor', backend_auth: true })

      const session = (await http(system.base, 'POST', '/auth', { body: { username: 'carol', password: 'carol-pass-one' } })).body.data
      expect(json(adminWith(system, { input: 'carol-pass-two\n' }, 'users', 'passwd', 'carol', '--json'))).toMatchObject({ username: 'carol' })
      expect(await status('carol', 'carol-pass-one')).toBe(401)
      expect(await status('carol', 'carol-pass-two')).toBe(200)
      const refreshed = await http(system.base, 'POST', '/auth', { body: { grant_type: 'refresh_token', refresh_token: session.refresh_token } })
      expect(refreshed.status).toBe(401)

      expect(json(admin('users', 'disable', 'carol', '--json'))).toMatchObject({ disabled: true })
      expect(await status('carol', 'carol-pass-two')).toBe(401)
      expect(json(admin('users', 'enable', 'carol', '--json'))).toMatchObject({ disabled: false })
      expect(await status('carol', 'carol-pass-two')).toBe(200)

      expect(json(admin('users', 'delete', 'carol', '--json'))).toMatchObject({ username: 'carol', deleted: true })
      expect(await status('carol', 'carol-pass-two')).toBe(401)
      const gone = admin('users', 'show', 'carol')
      expect(gone.status).toBe(1)
      expect(gone.stderr).toContain('no user named carol')
      const last = admin('users', 'delete', ADMIN.username)
      expect(last.status).toBe(1)
      expect(last.stderr).toContain('LAST_ADMINISTRATOR')
    })

    it('keys: created once for a build job, used as a bearer token to read and write, listed without the key, revoked', async () => {
      const created = json(admin('keys', 'create', '--name', 'ci', '--groups', 'editor', '--expires', '30d', '--json'))
      expect(created.key).toMatch(/^ck_[0-9a-f]{16}_/)
      const auth = { authorization: `Bearer ${created.key}` }
      expect((await http(system.base, 'GET', '/objects', { headers: auth })).status).toBe(200)
      const doc = await http(system.base, 'POST', '/objects', { headers: auth, body: { data: { object_type: 'document', title: 'From CI', parents: [1] } } })
      expect(doc.status).toBe(201)
      const listed = admin('keys', 'list', '--json')
      expect(json(listed)).toContainEqual(expect.objectContaining({ id: created.id, name: 'ci', groups: ['editor'], last_used: expect.any(String) }))
      expect(listed.stdout).not.toContain(created.key)
      expect(json(admin('keys', 'revoke', created.id, '--json'))).toEqual({ id: created.id, revoked: true })
      const refused = await http(system.base, 'GET', '/objects', { headers: auth })
      expect(refused.status).toBe(401)
      expect(refused.body.error.code).toBe('TOKEN_INVALID')
      expect(admin('keys', 'create', '--name', 'x', '--expires', 'yesterday').status).toBe(2)
    })
  })
})
