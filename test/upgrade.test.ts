import { spawn } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { login } from './support/seeded.js'
import { ROOT, http, removeDir, startSystem, type RunningSystem } from './support/system.js'

/**
 * The data directory release 16aab38 (the last before schema versions) leaves after `npm start` with its
 * demo publication, a login and a rendered thumbnail: made with that release's code by
 * scripts/release-fixture.mjs, with what its API answered (release.json).
 */
const FIXTURE = join(ROOT, 'test/fixtures/release-16aab38')
interface Recorded {
  admin: { username: string, password: string }
  refresh_token: string
  objects: { id: number }[]
  children: Record<string, number[]>
  media: { path: string, sha256: string }[]
  thumbnail: { path: string, sha256: string }
}
const recorded = JSON.parse(readFileSync(join(FIXTURE, 'release.json'), 'utf8')) as Recorded

const dirs: string[] = []
const systems: RunningSystem[] = []
afterAll(async () => {
  for (const system of systems) await system.stop()
  for (const dir of dirs) removeDir(dir)
})

/** A copy of the release's data directory, as an upgrade finds it. */
function releaseDataDir (): string {
  const dir = mkdtempSync(join(tmpdir(), 'content-upgrade-'))
  dirs.push(dir)
  cpSync(FIXTURE, dir, { recursive: true })
  rmSync(join(dir, 'release.json'))
  return dir
}

/** The recorded answers with the release's address replaced by this system's. */
const atBase = <T>(value: T, base: string): T => JSON.parse(JSON.stringify(value).replace(/http:\/\/127\.0\.0\.1:\d+/g, base)) as T

const sha256 = async (base: string, path: string) => {
  const res = await fetch(base + path)
  expect(res.status, path).toBe(200)
  return createHash('sha256').update(Buffer.from(await res.arrayBuffer())).digest('hex')
}

const schemaVersions = (dir: string) => {
  const version = (file: string) => {
    const db = new Database(join(dir, file), { readonly: true })
    try {
      return db.pragma('user_version', { simple: true })
    } finally {
      db.close()
    }
  }
  return {
    auth: version('auth.sqlite'),
    objects: version('objects.sqlite'),
    poster: (JSON.parse(readFileSync(join(dir, 'media/schema-version.json'), 'utf8')) as { version: number }).version,
  }
}

function adminMigrate (dataDir: string): Promise<{ code: number | null, out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'services/admin/dist/main.js'), 'migrate', '--json'], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'ignore'],
    })
    let out = ''
    child.stdout.on('data', (d) => { out += String(d) })
    child.on('exit', (code) => resolve({ code, out }))
  })
}

/** Each store's schema version in this release (decisions §17: auth 2 keeps stream tickets, objects 2 records access in the outbox). */
const LATEST = { auth: 2, objects: 2, poster: 1 }

describe('a data directory written by the last release before schema versions', () => {
  it('is recognised and upgraded in place at start, every store at its latest version, and answers as that release did', async () => {
    const dir = releaseDataDir()
    const system = await startSystem({ LOG_LEVEL: 'info' }, dir)
    systems.push(system)
    for (const [store, version] of Object.entries(LATEST)) {
      expect(system.output(), store).toMatch(new RegExp(`${store} \\([^)]*\\): from an earlier release without versions to version ${version}`))
    }
    expect(schemaVersions(dir)).toEqual(LATEST)

    const { base } = system
    const token = (await login(base, recorded.admin.username, recorded.admin.password)).access_token
    const objects = await http(base, 'GET', '/objects?page_size=100', { headers: { authorization: `Bearer ${token}` } })
    expect(objects.status).toBe(200)
    expect(objects.body.data.objects).toEqual(atBase(recorded.objects, base))
    for (const [section, ids] of Object.entries(recorded.children)) {
      expect((await http(base, 'GET', `/objects/${section}/children?page_size=100`)).body.data.objects.map((o: { id: number }) => o.id)).toEqual(ids)
    }
    for (const file of recorded.media) expect(await sha256(base, file.path), file.path).toBe(file.sha256)
    // the thumbnail rendered by the release, kept in its store and served again under its signed address
    expect(await sha256(base, recorded.thumbnail.path)).toBe(recorded.thumbnail.sha256)
    // a login of the release refreshes
    expect((await http(base, 'POST', '/auth', { body: { grant_type: 'refresh_token', refresh_token: recorded.refresh_token } })).status).toBe(200)
    // and the upgraded store takes writes
    const created = await http(base, 'POST', '/objects', {
      headers: { authorization: `Bearer ${token}` }, body: { data: { object_type: 'document', title: 'After the upgrade', parents: [1] } },
    })
    expect(created.status).toBe(201)
  })

  it('with MIGRATE_ON_START=false, is refused until `admin migrate` has run, then served as it is', async () => {
    const dir = releaseDataDir()
    await expect(startSystem({ MIGRATE_ON_START: 'false' }, dir)).rejects.toThrow(/was written by a release from before schema versions; this release needs version \d: run `npm run admin -- migrate`/)
    const migrated = await adminMigrate(dir)
    expect(migrated.code).toBe(0)
    const reports = JSON.parse(migrated.out.trim().split('\n').at(-1) ?? '[]') as { store: string, earlierRelease: boolean, to: number }[]
    expect(reports.map((r) => [r.store, r.earlierRelease, r.to])).toEqual([['auth', true, 2], ['objects', true, 2], ['poster', true, 1]])
    const system = await startSystem({ MIGRATE_ON_START: 'false' }, dir)
    systems.push(system)
    expect((await http(system.base, 'GET', `/objects/${recorded.objects[0]?.id}`)).status).toBe(200)
  })
})
