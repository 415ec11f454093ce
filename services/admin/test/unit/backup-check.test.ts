import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { objectBatches, BATCH } from '../../src/backup/batches.js'
import { FileChecker } from '../../src/backup/check.js'
import type { Line } from '../../src/backup/format.js'
import { BackupError, readRecords, splitLines } from '../../src/backup/lines.js'

const object = (id: number, more: Record<string, unknown> = {}) => ({
  object: { id, object_type: id === 1 ? 'area' : 'document', nickname: `n${id}`, status: 'on', permissions: { read: [], write: [] }, parents: id === 1 ? [] : [{ id: 1, priority: id }], relations: [], file: null, ...more },
})
const header = { header: { format: 'content-export', version: 1, created: '2026-01-01T00:00:00.000Z' } }

/** A file of these records, sealed with a correct end line unless `end` is given. */
function fileOf (records: unknown[], end?: unknown): string {
  const body = records.map((r) => `${JSON.stringify(r)}\n`).join('')
  const counts: Record<string, number> = {}
  for (const r of records) { const k = Object.keys(r as object)[0] as string; counts[k] = (counts[k] ?? 0) + 1 }
  return `${body}${JSON.stringify(end ?? { end: { counts, sha256: createHash('sha256').update(body).digest('hex') } })}\n`
}

/** Runs the checker over a file as an import's first pass does; the problem, or null. */
async function problemOf (text: string, existingGroups: string[] = []): Promise<string | null> {
  const checker = new FileChecker(new Set(existingGroups))
  const hash = createHash('sha256')
  let end: Extract<Line, { kind: 'end' }>['value'] | null = null
  try {
    for await (const line of readRecords(Readable.from([Buffer.from(text)]), hash)) {
      checker.feed(line)
      if (line.kind === 'end') end = line.value
    }
    checker.finish(end, hash.digest('hex'))
    return null
  } catch (err) {
    if (!(err instanceof BackupError)) throw err
    return err.message
  }
}

const bytes = Buffer.from('some bytes of a file')
const withFile = (size = bytes.length, sha = createHash('sha256').update(bytes).digest('hex')) =>
  object(2, { object_type: 'image', file: { name: 'a.jpg', mime_type: 'image/jpeg', size, sha256: sha } })

describe('FileChecker: an export file on its own', () => {
  it('a whole, sealed file passes', async () => {
    expect(await problemOf(fileOf([header, { group: { name: 'g', backend_auth: false } }, object(1), withFile(), { chunk: bytes.toString('base64') }, object(3),
      { user: { username: 'u', name: '', email: '', groups: ['g'], disabled: false, card: null, password_hash: 'x' } }, { webhook: { url: 'https://example.org/h', events: ['*'], active: true } }]))).toBeNull()
  })

  it.each([
    ['no header', [object(1)], 'does not start with a header'],
    ['two headers', [header, header], 'a second header'],
    ['an unknown kind', [header, { people: [] }], 'unknown record kind "people"'],
    ['a record of two kinds', [header, { group: { name: 'g', backend_auth: false }, tag: { name: 't', label: 't' } }], 'one key naming its kind'],
    ['a group after the objects', [header, object(1), { group: { name: 'g', backend_auth: false } }], 'a group record after the object records'],
    ['ids not ascending', [header, object(1), object(3), object(2)], 'object 2 after object 3'],
    ['a first object that is not the publication', [header, object(2)], 'the first object must be the publication'],
    ['a second area', [header, object(1), object(2, { object_type: 'area' })], 'the only area'],
    ['an unknown object type', [header, object(1), object(2, { object_type: 'spaceship' })], 'unknown object type "spaceship"'],
    ['a nickname twice', [header, object(1), object(2), object(3, { nickname: 'n2' })], 'nickname "n2" appears twice'],
    ['a parent that is a document', [header, object(1), object(2), object(3, { parents: [{ id: 2, priority: 1 }] })], 'parent 2 is not a section'],
    ['a parent not in the file', [header, object(1), object(3, { parents: [{ id: 2, priority: 1 }] })], 'names object 2, which is not in the file'],
    ['a later parent not in the file', [header, object(1), object(2, { parents: [{ id: 9, priority: 1 }] })], 'names object 9, which is not in the file'],
    ['an object under itself', [header, object(1), object(2, { parents: [{ id: 2, priority: 1 }] })], 'object 2 names itself'],
    ['a relation the types forbid', [header, object(1), object(2), object(3, { relations: [{ name: 'poster', related: 2, priority: 1, params: null }] })], 'cannot relate to a document with "poster"'],
    ['an unknown relation', [header, object(1), object(2), object(3, { relations: [{ name: 'likes', related: 2, priority: 1, params: null }] })], 'cannot relate'],
    ['permissions naming an unknown group', [header, object(1), object(2, { permissions: { read: ['ghosts'], write: [] } })], 'unknown group "ghosts"'],
    ['file bytes of no object', [header, object(1), { chunk: 'AAAA' }], 'file bytes that follow no media object'],
    ['a file shorter than its size', [header, object(1), withFile(bytes.length + 5), { chunk: bytes.toString('base64') }], 'has 20 of its 25 bytes'],
    ['a file longer than its size', [header, object(1), withFile(3), { chunk: bytes.toString('base64') }], 'more bytes than its size'],
    ['a file that does not match its hash', [header, object(1), withFile(bytes.length, '0'.repeat(64)), { chunk: bytes.toString('base64') }], 'does not match its sha256'],
    ['a chunk that is not base64', [header, object(1), withFile(), { chunk: '<script>' }], 'chunk'],
    ['a user naming an unknown group', [header, object(1), { user: { username: 'u', name: '', email: '', groups: ['ghosts'], disabled: false, card: null, password_hash: 'x' } }], 'unknown groups: ghosts'],
    ['a user whose card is not a card', [header, object(1), object(2), { user: { username: 'u', name: '', email: '', groups: [], disabled: false, card: 2, password_hash: 'x' } }], 'is not a card of the file'],
    ['a user twice', [header, object(1), ...[1, 2].map(() => ({ user: { username: 'u', name: '', email: '', groups: [], disabled: false, card: null, password_hash: 'x' } }))], 'user "u" appears twice'],
    ['an object with an unknown extension field of the wrong type', [header, object(1), object(2, { parents: 'all' })], 'parents'],
  ])('%s is refused', async (_label, records, message) => {
    expect(await problemOf(fileOf(records))).toContain(message)
  })

  it('groups of the system imported into may be named', async () => {
    const file = fileOf([header, object(1), object(2, { permissions: { read: ['members'], write: [] } })])
    expect(await problemOf(file)).toContain('unknown group "members"')
    expect(await problemOf(file, ['members'])).toBeNull()
  })

  it('a file cut short, altered, miscounted or followed by more is refused', async () => {
    const whole = fileOf([header, object(1), object(2)])
    expect(await problemOf(whole.split('\n').slice(0, -2).join('\n'))).toContain('cut short')
    expect(await problemOf(whole.replace('"n2"', '"n9"'))).toContain('altered or damaged')
    const body = [header, object(1)].map((r) => `${JSON.stringify(r)}\n`).join('')
    expect(await problemOf(fileOf([header, object(1)], { end: { counts: { header: 1, object: 2 }, sha256: createHash('sha256').update(body).digest('hex') } }))).toContain('its end line says 2')
    expect(await problemOf(`${whole}${JSON.stringify(object(3))}\n`)).toContain('after the end line')
  })

  it('JSON nested past the limit is refused before it is parsed', async () => {
    expect(await problemOf(`${'['.repeat(10_000)}${']'.repeat(10_000)}\n`)).toContain('line 1:')
  })
})

describe('splitLines', () => {
  it('splits across chunks and refuses a line past the limit before holding it whole', async () => {
    const lines: string[] = []
    for await (const l of splitLines(Readable.from([Buffer.from('ab\ncd'), Buffer.from('e\n\nf')]))) lines.push(l.toString())
    expect(lines).toEqual(['ab', 'cde', '', 'f'])
    const long = Readable.from([Buffer.alloc(60, 'x'), Buffer.alloc(60, 'x')])
    await expect(async () => { for await (const _ of splitLines(long, 100)) { /* drained */ } }).rejects.toThrow('longer than 100 bytes')
  })
})

describe('objectBatches', () => {
  async function batchesOf (records: unknown[]): Promise<number[][]> {
    const out: number[][] = []
    for await (const step of objectBatches(readRecords(Readable.from([Buffer.from(fileOf(records))])), null)) {
      if (step.type === 'batch') out.push(step.entries.map((e) => e.record.id))
    }
    return out
  }

  it('cuts every BATCH objects, in id order, the publication apart', async () => {
    const ids = Array.from({ length: BATCH * 2 + 3 }, (_, i) => i + 2)
    const batches = await batchesOf([header, object(1), ...ids.map((id) => object(id))])
    expect(batches.map((b) => b.length)).toEqual([BATCH, BATCH, 3])
    expect(batches.flat()).toEqual(ids)
  })

  it('keeps an object with the later section it is placed under in one batch', async () => {
    const ids = Array.from({ length: BATCH + 10 }, (_, i) => i + 2)
    const later = BATCH + 8
    const records = [header, object(1), ...ids.map((id) => object(id, id === 5 ? { parents: [{ id: later, priority: 1 }] } : {}))]
    const batches = await batchesOf(records)
    const holding = batches.find((b) => b.includes(5)) as number[]
    expect(holding).toContain(later)
    expect(batches.flat()).toEqual(ids)
  })
})
