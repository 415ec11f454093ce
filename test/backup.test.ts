import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestDatabase, type TestDatabase } from '@content/platform/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answersOf, expectSameAnswers, type Answers } from './support/backup-answers.js'
import { BACKUP_USERS, NICKNAMES, seedRichPublication } from './support/backup-seed.js'
import { admin, adminWith, login } from './support/seeded.js'
import { ADMIN, http, removeDir, startSystem, type RunningSystem } from './support/system.js'

/** A file's lines with `edit` applied, then sealed again: its end line's hash and counts made to agree, as a forger would. */
function forged (text: string, edit: (records: Record<string, unknown>[]) => Record<string, unknown>[]): string {
  const records = edit(text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => !('end' in r)))
  const body = records.map((r) => `${JSON.stringify(r)}\n`).join('')
  const counts: Record<string, number> = {}
  for (const r of records) { const kind = Object.keys(r)[0] as string; counts[kind] = (counts[kind] ?? 0) + 1 }
  return `${body}${JSON.stringify({ end: { counts, sha256: createHash('sha256').update(body).digest('hex') } })}\n`
}

/** The harbour image's bytes replaced by text, with a size and hash that match them. */
function textForImage (records: Record<string, unknown>[]): Record<string, unknown>[] {
  const bytes = Buffer.from('not an image at all')
  const out: Record<string, unknown>[] = []
  let skipping = false
  for (const r of records) {
    if ('chunk' in r && skipping) continue
    skipping = false
    const o = r.object as { nickname?: string } | undefined
    if (o?.nickname !== 'harbour') {
      out.push(r)
      continue
    }
    skipping = true
    out.push({ object: { ...o, file: { name: 'harbour.jpg', mime_type: 'image/jpeg', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') } } })
    out.push({ chunk: bytes.toString('base64') })
  }
  return out
}

async function onlyThePublication (system: RunningSystem): Promise<void> {
  const token = (await http(system.base, 'POST', '/auth', { body: ADMIN })).body.data.access_token as string
  const list = await http(system.base, 'GET', '/objects?status=draft', { headers: { authorization: `Bearer ${token}` } })
  expect(list.body.paging.total).toBe(0)
  const users = JSON.parse(admin(system, 'users', 'list', '--json').lastLine) as { username: string }[]
  expect(users.map((u) => u.username)).toEqual(['admin'])
  const groups = JSON.parse(admin(system, 'groups', 'list', '--json').lastLine) as { name: string }[]
  expect(groups.map((g) => g.name).sort()).toEqual(['administrator', 'editor'])
}

describe('admin export, then admin import into an empty system, on SQLite and on PostgreSQL', () => {
  let source: RunningSystem
  let sqlite: RunningSystem
  let postgres: RunningSystem
  let database: TestDatabase
  let dir: string
  let file: string
  let expected: Answers

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'content-backup-'))
    database = await createTestDatabase('backup')
    // one after the other, the source stopped once read: several systems starting at once on two loaded
    // cores may miss their start-up deadline
    source = await startSystem()
    await seedRichPublication(source, dir)
    file = join(dir, 'export.ndjson')
    const exported = admin(source, 'export', '--out', file, '--json')
    expect(exported.status, exported.stderr).toBe(0)
    expected = await answersOf(source, NICKNAMES)
    await source.stop()
    sqlite = await startSystem()
    postgres = await startSystem({ STORE: 'postgres', DATABASE_URL: database.url })
  }, 600_000)
  afterAll(async () => {
    await Promise.all([source, sqlite, postgres].map((s) => s?.stop()))
    for (const s of [source, sqlite, postgres]) if (s) removeDir(s.dataDir)
    await database?.drop()
    if (dir) removeDir(dir)
  })

  it('the export is NDJSON: a header, the records, an end line whose hash covers every byte before it', () => {
    const lines = readFileSync(file, 'utf8').trim().split('\n')
    expect(JSON.parse(lines[0] as string)).toMatchObject({ header: { format: 'content-export', version: 1 } })
    const end = JSON.parse(lines.at(-1) as string).end
    const body = `${lines.slice(0, -1).join('\n')}\n`
    expect(end.sha256).toBe(createHash('sha256').update(body).digest('hex'))
    // 13 objects made, one trashed: the publication and 12 others; two files; both seeded users and the admin
    expect(end.counts).toMatchObject({ header: 1, object: 13, user: 3 })
    expect(end.counts.chunk).toBeGreaterThanOrEqual(2)
    const objects = lines.map((l) => JSON.parse(l)).filter((r) => 'object' in r).map((r) => r.object)
    expect(objects.map((o) => o.nickname)).not.toContain('gone')
    expect(objects.find((o) => o.nickname === 'off')).toMatchObject({ status: 'off' })
    expect(objects.find((o) => o.nickname === 'secret')).toMatchObject({ permissions: { read: ['members'], write: ['editor'] } })
  })

  it.each([
    ['a file cut short', (text: string) => text.split('\n').slice(0, -3).join('\n'), 'cut short'],
    ['a byte changed', (text: string) => text.replace('"Hello"', '"Hallo"'), 'altered or damaged'],
    ['not JSON at all', () => 'this is not an export\n', 'line 1: not valid JSON'],
    ['a fixtures file', () => '{"objects": []}\n', 'unknown record kind "objects"'],
    ['an empty file', () => '', 'cut short'],
    ['an object of a forged file with a field of the wrong type', (text: string) => forged(text, (rs) => rs.map((r) => ('object' in r && (r.object as { nickname: string }).nickname === 'party' ? { object: { ...(r.object as object), title: 5 } } : r))), 'title'],
    ['a forged file whose image bytes are text', (text: string) => forged(text, textForImage), 'object 9'],
    ['a forged file relating objects that cannot relate', (text: string) => forged(text, (rs) => rs.map((r) => {
      if (!('object' in r) || (r.object as { nickname: string }).nickname !== 'party') return r
      return { object: { ...(r.object as object), relations: [{ name: 'poster', related: 5, priority: 1, params: null }] } }
    })), 'cannot relate'],
  ])('%s is refused with a clear message and nothing is written', async (_label, damage, message) => {
    const damaged = join(dir, 'damaged.ndjson')
    writeFileSync(damaged, damage(readFileSync(file, 'utf8')))
    const run = admin(sqlite, 'import', '--in', damaged)
    expect(run.status, run.stdout).toBe(1)
    expect(run.stderr).toContain(message)
    await onlyThePublication(sqlite)
  }, 120_000)

  it('into SQLite: every answer of the source, answer by answer; users log in with their passwords', async () => {
    const run = adminWith(sqlite, { input: readFileSync(file, 'utf8') }, 'import', '--json')
    expect(run.status, run.stderr).toBe(0)
    expect(JSON.parse(run.lastLine)).toMatchObject({ users: 2, users_kept: ['admin'] })
    expectSameAnswers(await answersOf(sqlite, NICKNAMES), expected)
    const alice = BACKUP_USERS[0] as { username: string, password: string }
    const tokens = await login(sqlite.base, alice.username, alice.password)
    expect((await http(sqlite.base, 'GET', '/objects/secret', { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200)
    // a second import into the now filled system is refused, and changes nothing
    const again = admin(sqlite, 'import', '--in', file)
    expect(again.status).toBe(1)
    expect(again.stderr).toContain('empty system')
  }, 300_000)

  it('into PostgreSQL: every answer of the source, answer by answer; users log in with their passwords', async () => {
    const run = admin(postgres, 'import', '--in', file)
    expect(run.status, run.stderr).toBe(0)
    expectSameAnswers(await answersOf(postgres, NICKNAMES), expected)
    const bob = BACKUP_USERS[1] as { username: string, password: string }
    await login(postgres.base, bob.username, bob.password)
  }, 300_000)
})
