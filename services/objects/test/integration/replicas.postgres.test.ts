import { randomBytes } from 'node:crypto'
import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ChangeEvent } from '../../src/core/change-events.js'
import { UniqueConflict } from '../../src/core/conflicts.js'
import type { ObjectsStore } from '../../src/core/ports.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import { must } from '../support/must.js'
import { openTestStore, schemaOf, tempSchema } from '../support/temp-postgres.js'
import { draft } from './store.contract.js'

/**
 * Several processes on one PostgreSQL store: what no single process can get wrong alone. The writers of
 * the numbering test are child processes running the built store; the others are stores of their own
 * pools in this process (separate sessions, transactions in parallel on the server).
 */
const child = resolve(import.meta.dirname, '../support/writer-child.mjs')
const runWriter = (url: string, count: number, concurrency: number) => new Promise<number[]>((done, fail) => {
  const p = spawn(process.execPath, [child, url, String(count), String(concurrency), must(schemaOf(url))], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  p.stdout.on('data', (chunk) => { out += String(chunk) })
  p.on('exit', (code) => (code === 0 ? done(JSON.parse(out) as number[]) : fail(new Error(`writer exited ${code}`))))
})

async function until (check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('PostgreSQL store: replicas on one database', () => {
  const closers: (() => Promise<void>)[] = []
  afterEach(async () => { for (const close of closers.splice(0).reverse()) await close() })
  async function replicas (n: number): Promise<{ url: string, stores: ObjectsStore[] }> {
    const { url, drop } = await tempSchema()
    closers.push(drop)
    const stores: ObjectsStore[] = []
    for (let i = 0; i < n; i++) {
      const store = await openTestStore(url, {}, 6)
      closers.push(() => store.close())
      stores.push(store)
    }
    return { url, stores }
  }

  it('when two writer processes create at once, then a reader following the outbox meets every number once, in order, with no gap ever visible, and hears of their commits', async () => {
    const { url, stores: [reader] } = await replicas(1)
    const r = must(reader)
    let heard = 0
    r.onChange(() => { heard++ })
    const seen: ChangeEvent[] = []
    let writing = true
    const follow = (async () => {
      while (writing || seen.length === 0 || must(seen.at(-1)).seq < (await r.changes.bounds()).last) {
        const events = await r.changes.after(seen.at(-1)?.seq ?? 0, 500)
        seen.push(...events)
        if (events.length === 0) await new Promise((res) => setTimeout(res, 2))
      }
    })()
    const [a, b] = await Promise.all([runWriter(url, 150, 6), runWriter(url, 150, 6)])
    writing = false
    await follow
    const created = [...a, ...b]
    expect(new Set(created).size).toBe(300)
    // each create records object.created and child.added: 600 events, numbered 1…600 as the reader met them
    expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: 600 }, (_, i) => i + 1))
    expect(seen.filter((e) => e.type === 'object.created').map((e) => e.object_id).sort((x, y) => x - y)).toEqual([...created].sort((x, y) => x - y))
    // a create's two events are adjacent: numbered together at its commit
    for (let i = 0; i < seen.length; i += 2) expect([seen[i]?.type, seen[i + 1]?.type, seen[i]?.object_id]).toEqual(['object.created', 'child.added', seen[i + 1]?.object_id])
    expect(heard).toBeGreaterThan(0)
    // the kept counts took every create of both processes
    expect((await r.tree.children(PUBLICATION_ID, 'all', { visibility: { statuses: ['on'], at: null, groups: [] }, filter: { object_types: [], query: '' }, offset: 0, limit: 1 })).total).toBe(300)
  }, 120_000)

  it('when another replica commits, then this one hears of it within a moment (LISTEN/NOTIFY), and not of its own writes twice', async () => {
    const { stores: [one, two] } = await replicas(2)
    let heardByTwo = 0
    let heardByOne = 0
    must(two).onChange(() => { heardByTwo++ })
    must(one).onChange(() => { heardByOne++ })
    const started = Date.now()
    await must(one).objects.create(draft('document', 'D'), 1)
    await until(() => heardByTwo >= 1, 2_000)
    expect(Date.now() - started).toBeLessThan(2_000)
    await new Promise((r) => setTimeout(r, 200))
    expect(heardByOne).toBe(1)
  })

  it('when two replicas claim one nickname at once, then one wins and the other is refused; a trashed object keeps its nickname against both', async () => {
    const { stores: [one, two] } = await replicas(2)
    for (let round = 0; round < 10; round++) {
      const results = await Promise.allSettled([
        must(one).objects.create(draft('document', 'A', { nickname: `same-${round}` }), 1),
        must(two).objects.create(draft('document', 'B', { nickname: `same-${round}` }), 1),
      ])
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
      const refused = results.find((r) => r.status === 'rejected')
      expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(UniqueConflict)
    }
    // generated nicknames from one title on both replicas: all distinct, none refused
    const generated = await Promise.all(Array.from({ length: 20 }, (_, i) => must(i % 2 === 0 ? one : two).objects.create(draft('document', 'Same title'), 1)))
    const nicknames = (await must(one).objects.listByIds(generated)).map((r) => r.nickname)
    expect(new Set(nicknames).size).toBe(20)
    const trashed = await must(one).objects.create(draft('document', 'T', { nickname: 'kept' }), 1)
    const [put, taken] = await Promise.allSettled([must(one).trash.put(trashed, 1, 5), must(two).objects.create(draft('document', 'U', { nickname: 'kept' }), 1)])
    expect(put).toMatchObject({ status: 'fulfilled', value: 'trashed' })
    expect(taken.status).toBe('rejected')
  })

  it('when two replicas move two sections under each other at once, then one move is refused and the tree keeps no cycle', async () => {
    const { stores: [one, two] } = await replicas(2)
    for (let round = 0; round < 8; round++) {
      // two sections not yet placed: each may take the other as its one parent, not both
      const a = await must(one).objects.create(draft('section', `A${round}`), 1)
      const b = await must(one).objects.create(draft('section', `B${round}`), 1)
      // both checked by the core first (neither is the other's ancestor yet), then written at once
      expect(await must(one).tree.isAncestor(a, b)).toBe(false)
      const results = await Promise.allSettled([
        must(one).tree.addChildren(b, [{ child_id: a, priority: null }]),
        must(two).tree.addChildren(a, [{ child_id: b, priority: null }]),
      ])
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
      // the placement's cycle check, run in its transaction under the tree's lock, refuses the second
      expect(String((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason)).toContain('cannot be placed under itself or its own descendant')
      expect((await must(two).tree.isAncestor(a, b)) && (await must(two).tree.isAncestor(b, a))).toBe(false)
    }
  })

  it('when two replicas add one relation at once, then one creates it and the other finds it made: one pair of rows, one relation.created', async () => {
    const { stores: [one, two] } = await replicas(2)
    for (let round = 0; round < 10; round++) {
      const p = await must(one).objects.create(draft('document', `P${round}`), 1)
      const q = await must(one).objects.create(draft('document', `Q${round}`), 1)
      const saved = await Promise.all([one, two].map((s, i) => must(s).relations.save(p, 'attach', 'attached_to', [{ related_id: q, priority: null, params: JSON.stringify({ by: i }) }])))
      expect(saved.map(([row]) => must(row).created).sort(), `round ${round}`).toEqual([false, true])
      expect((await must(two).relations.list(p, 'attach', { offset: 0, limit: 10, visibility: { statuses: ['on'], at: null, groups: [] }, filter: { object_types: [], query: '' } })).items.map((r) => r.related_id)).toEqual([q])
      expect((await must(two).relations.list(q, 'attached_to', { offset: 0, limit: 10, visibility: { statuses: ['on'], at: null, groups: [] }, filter: { object_types: [], query: '' } })).items.map((r) => r.related_id)).toEqual([p])
      const events = (await must(one).changes.after(0, 10_000)).filter((e) => e.type.startsWith('relation.') && e.object_id === p)
      expect(events.map((e) => e.type)).toEqual(['relation.created', 'relation.updated'])
    }
  })

  it('when two replicas trash one object at once, then one trashes it and the other finds it gone: one object.trashed', async () => {
    const { stores: [one, two] } = await replicas(2)
    for (let round = 0; round < 10; round++) {
      const id = await must(one).objects.create(draft('document', `Doomed ${round}`), 1)
      const outcomes = await Promise.all([one, two].map((s) => must(s).trash.put(id, 1, 5)))
      expect(outcomes.sort(), `round ${round}`).toEqual(['absent', 'trashed'])
      const events = (await must(two).changes.after(0, 10_000)).filter((e) => e.object_id === id && e.type === 'object.trashed')
      expect(events).toHaveLength(1)
    }
  })

  it('when replicas take the delivery lease, run a schedule round and purge the trash at once, then each is done by exactly one', async () => {
    const { stores } = await replicas(3)
    const leases = await Promise.all(stores.map((s, i) => s.webhooks.lease('deliveries', `holder-${i}`, 1_000, 60_000)))
    expect(leases.filter(Boolean)).toHaveLength(1)
    const [one] = stores as [ObjectsStore]
    // windows opening at 150 and 250; the first round only sets the watermark
    await one.schedule.announce(100, ['on'])
    for (const start of [150, 250]) await one.objects.create(draft('document', `W${start}`, { columns: { ...draft('document', null).columns, title: 'W', start_date: start } }), 50)
    const announced = await Promise.all(stores.map((s) => s.schedule.announce(300, ['on'])))
    expect(announced.reduce((x, y) => x + y, 0)).toBe(2)
    const doomed = await one.objects.create(draft('document', 'Doomed'), 1)
    await one.trash.put(doomed, 1, 1)
    const purged = await Promise.all(stores.map((s) => s.trash.purge(doomed)))
    expect(purged.filter((p) => p === 'purged')).toHaveLength(1)
    const events = await one.changes.after(0, 1_000)
    expect(events.filter((e) => e.type === 'object.published')).toHaveLength(2)
    expect(events.filter((e) => e.type === 'object.deleted' && e.object_id === doomed)).toHaveLength(1)
  })
})

describe('PostgreSQL store: text it cannot hold', () => {
  it('when a write or a filter holds U+0000, then it is refused as the client\'s input (VALIDATION_FAILED), and nothing is written', async () => {
    const { url, drop } = await tempSchema()
    const store = await openTestStore(url)
    try {
      await expect(store.objects.create(draft('document', 'a\u0000b'), 1)).rejects.toMatchObject({ reason: 'VALIDATION_FAILED' })
      expect(await store.changes.bounds()).toEqual({ first: null, last: 0 })
      await expect(store.lists.select({ kind: 'descendants', node: PUBLICATION_ID, order: 'id' }, {
        visibility: { statuses: ['on'], at: null, groups: [] }, filter: { object_types: [], query: '' },
        clauses: [{ field: 'title', op: 'eq', values: ['x\u0000'], group: null }], sort: [], after: null, offset: 0, limit: 10, count: true,
      })).rejects.toMatchObject({ reason: 'VALIDATION_FAILED' })
    } finally {
      await store.close()
      await drop()
    }
  })

  it('when a name is too long for its index (past what the write schemas let through), then VALIDATION_FAILED, never a 500, and nothing is written', async () => {
    const { url, drop } = await tempSchema()
    const store = await openTestStore(url)
    // random, so that PostgreSQL cannot compress the index row under its bound
    const name = randomBytes(9_000).toString('base64').slice(0, 9_000)
    try {
      await expect(store.objects.create(draft('document', 'D', { extras: { custom_properties: { [name]: 'v' } } }), 1)).rejects.toMatchObject({ reason: 'VALIDATION_FAILED' })
      expect(await store.changes.bounds()).toEqual({ first: null, last: 0 })
    } finally {
      await store.close()
      await drop()
    }
  })
})
