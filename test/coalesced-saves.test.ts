import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedBola, USERS } from './support/bola-fixtures.js'
import { http, removeDir, startSystem, type Reply, type RunningSystem } from './support/system.js'
import { login } from './support/writer.js'

/**
 * Saves (POST /objects) that reach the gateway in one event-loop turn share one call to the objects
 * service (COALESCE_WRITES, on by default), which commits them together. Callers with different rights,
 * interleaved with bad bodies and repeats, must each get exactly the answer of their own call, and a
 * writer must read what it just wrote.
 */
describe('coalesced saves: callers with different rights in one batch', () => {
  let system: RunningSystem
  let refs: Record<string, number>
  let writer: string
  let reader: string

  beforeAll(async () => {
    system = await startSystem()
    refs = await seedBola(system)
    writer = await login(system.base, USERS['writer-with-read'])
    reader = await login(system.base, USERS['non-writer'])
  })
  afterAll(async () => {
    await system?.stop()
    if (system) removeDir(system.dataDir)
  })

  const save = (data: unknown, token?: string, headers: Record<string, string> = {}): Promise<Reply> =>
    http(system.base, 'POST', '/objects', { body: { data }, headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } })
  const doc = (title: string) => ({ object_type: 'document', title, parents: [refs.pubSec] })

  async function batchedSaves (): Promise<number> {
    const urls = JSON.parse(readFileSync(join(system.dataDir, 'services.json'), 'utf8')).metrics as Record<string, string>
    const text = await (await fetch(String(urls.objects))).text()
    const line = text.split('\n').find((l) => l.startsWith('content_batched_calls_total') && l.includes('rpc_method="SaveObject"'))
    return line ? Number(line.split(' ').pop()) : 0
  }

  it('when a writer, a reader without write rights, an anonymous caller, a bad body and a repeated key save at once, then each gets its own answer', async () => {
    const before = await batchedSaves()
    for (let round = 0; round < 20; round++) {
      const key = { 'idempotency-key': `round-${round}` }
      const [made, refused, anonymous, invalid, first, repeat] = await Promise.all([
        save(doc(`made ${round}`), writer),
        save(doc(`refused ${round}`), reader),
        save(doc(`anonymous ${round}`)),
        save({ object_type: 'document', title: 42 }, writer),
        save(doc(`once ${round}`), writer, key),
        save(doc(`once ${round}`), writer, key),
      ])
      expect(made.status, JSON.stringify(made.body)).toBe(201)
      expect(made.body.data.object.title).toBe(`made ${round}`)
      expect(made.headers.get('location')).toMatch(new RegExp(`/objects/${made.body.data.object.id}$`))
      expect([refused.status, refused.body.error.code]).toEqual([403, 'PERMISSION_DENIED'])
      expect(anonymous.status).toBe(401)
      expect([invalid.status, invalid.body.error.code]).toEqual([400, 'VALIDATION_FAILED'])
      // the repeat is the first's answer: one object, one answer marked as a replay
      expect([first.status, repeat.status]).toEqual([201, 201])
      expect(repeat.body.data.object.id).toBe(first.body.data.object.id)
      expect([first, repeat].map((r) => r.headers.get('idempotent-replayed') ?? 'false').sort()).toEqual(['false', 'true'])
      // read-your-writes: the writer reads the object it was just told of
      const read = await http(system.base, 'GET', `/objects/${made.body.data.object.id}`, { headers: { authorization: `Bearer ${writer}` } })
      expect([read.status, read.body.data?.object.title]).toEqual([200, `made ${round}`])
    }
    // the refused and anonymous saves made nothing
    const titles = await http(system.base, 'GET', `/objects/${refs.pubSec}/children?page_size=100`, { headers: { authorization: `Bearer ${writer}` } })
    const made = (titles.body.data.objects as { title: string }[]).map((o) => o.title)
    expect(made.filter((t) => /^(refused|anonymous) /.test(t))).toEqual([])
    expect(made.filter((t) => /^once /.test(t))).toHaveLength(20)
    // the rounds' saves did travel together
    expect(await batchedSaves()).toBeGreaterThan(before)
  })

  it('when 100 saves update one object at once, then each answers the object as that update left it, and the revisions hold all of them', async () => {
    // the saves of one turn share a batch (COALESCE_WRITES) and commit together: each answer is read inside
    // its own write, so none shows another save's title
    const id = (await save(doc('to update'), writer)).body.data.object.id as number
    const titles = Array.from({ length: 100 }, (_, i) => `updated ${i}`)
    const answers = await Promise.all(titles.map((title) => save({ id, title }, writer)))
    expect(answers.map((a) => a.status)).toEqual(titles.map(() => 200))
    expect(answers.map((a) => a.body.data.object.title)).toEqual(titles)
    const headers = { authorization: `Bearer ${writer}` }
    const read = await http(system.base, 'GET', `/objects/${id}`, { headers })
    expect(titles).toContain(read.body.data.object.title)
    // the create and each of the 100 updates, newest first: the newest is what the object holds
    const revisions: { revision: number, data: { title: string } }[] = []
    for (let page = 1; page <= 3; page++) {
      const listed = await http(system.base, 'GET', `/objects/${id}/revisions?page=${page}&page_size=50`, { headers })
      expect(listed.status, JSON.stringify(listed.body)).toBe(200)
      revisions.push(...listed.body.data.revisions)
    }
    expect(revisions.map((r) => r.revision)).toEqual(Array.from({ length: 101 }, (_, i) => 101 - i))
    expect(revisions[0]?.data.title).toBe(read.body.data.object.title)
    expect(revisions.slice(0, 100).map((r) => r.data.title).sort()).toEqual([...titles].sort())
    expect(revisions[100]?.data.title).toBe('to update')
  })
})
