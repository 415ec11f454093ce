import { spawnSync } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { photo, upload } from './support/media.js'
import { must } from './support/must.js'
import { startPostgresReplicas, type PostgresReplicas } from './support/replicas.js'
import { ADMIN, http, ROOT, type Reply } from './support/system.js'
import { client, create, expectError, type Client } from './support/writer.js'

/**
 * Replicas on PostgreSQL: two objects processes and two gateways (each spreading its calls over both
 * objects processes) with auth and poster, every store in one database. Writes race through both
 * gateways; what the database holds afterwards is read as a third party reads it.
 */
let system: PostgresReplicas
let writers: Client[] & { token?: string }
/** deliveries the local receiver took, by webhook-id */
const received = new Map<string, { seq: number, type: string, times: number }>()
let receiver: Server
let receiverUrl = ''

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => { body += c.toString() })
    req.on('end', () => {
      const id = String(req.headers['webhook-id'])
      const message = JSON.parse(body) as { type: string, data: { seq: number } }
      const seen = received.get(id)
      received.set(id, { seq: message.data.seq, type: message.type, times: (seen?.times ?? 0) + 1 })
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
  system = await startPostgresReplicas('replicas', { WEBHOOK_ALLOW_PRIVATE: 'true' })
  const token = await loginAdmin(system.base)
  writers = Object.assign(system.bases.map((b) => client(b, token)), { token })
}, 180_000)
afterAll(async () => {
  await system?.close()
  await new Promise((resolve) => receiver?.close(resolve))
})

async function loginAdmin (base: string): Promise<string> {
  const res = await http(base, 'POST', '/auth', { body: ADMIN })
  expect(res.status).toBe(200)
  return res.body.data.access_token as string
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const writer = (i: number): Client => must(writers[i % 2])

/** Every change event numbered, 1 … head with no gap and no repeat, the head where the last one is. */
async function expectGaplessOutbox (): Promise<number> {
  const [row] = await system.rows<{ unnumbered: number, n: number, distinct: number, first: number | null, last: number | null, head: number }>(`SELECT
    count(*) FILTER (WHERE seq IS NULL)::int AS unnumbered, count(seq)::int AS n, count(DISTINCT seq)::int AS distinct,
    min(seq)::int AS first, max(seq)::int AS last, (SELECT last FROM objects.change_head)::int AS head FROM objects.changes`)
  const { n } = must(row)
  expect(row).toEqual({ unnumbered: 0, n, distinct: n, first: n > 0 ? 1 : null, last: n > 0 ? n : null, head: n })
  return n
}

/** Object saves objects process `replica` answered so far (single or in a batch). */
async function savesServed (replica: number): Promise<number> {
  const text = await (await fetch(must(system.objectsMetrics[replica]))).text()
  let n = 0
  for (const m of text.matchAll(/^rpc_server_call_duration_seconds_count\{[^}]*rpc_method="(?:SaveObject|CallBatch)"[^}]*\} (\d+)/gm)) n += Number(m[1])
  return n
}

interface Write { object: number, kind: 'object.created' | 'object.updated', nth: number, started: number, acked: number }

describe('change events with writers on both replicas', () => {
  it('when writers race through both gateways, then every acknowledged write has its event, numbered without gaps, in the order the writes committed', async () => {
    const WRITERS = 6
    const UPDATES = 5
    const writes: Write[] = []
    const servedBefore = [await savesServed(0), await savesServed(1)]
    await Promise.all(Array.from({ length: WRITERS }, async (_, w) => {
      const via = writer(w)
      let started = performance.now()
      const object = await create(via, { object_type: 'document', title: `racer ${w}`, parents: [1] })
      writes.push({ object, kind: 'object.created', nth: 0, started, acked: performance.now() })
      for (let nth = 0; nth < UPDATES; nth++) {
        started = performance.now()
        const res = await via.post('/objects', { id: object, title: `racer ${w} v${nth}` })
        expect(res.status, JSON.stringify(res.body)).toBe(200)
        writes.push({ object, kind: 'object.updated', nth, started, acked: performance.now() })
      }
    }))
    // both objects processes took writes
    for (const replica of [0, 1]) expect(await savesServed(replica), `objects process ${replica} took no write`).toBeGreaterThan(must(servedBefore[replica]))
    // each write answers once its events are numbered: they are all there at once
    await expectGaplessOutbox()
    const events = await system.rows<{ seq: number, type: string, object_id: number }>(`SELECT seq::int, type, object_id::int FROM objects.changes
      WHERE type IN ('object.created', 'object.updated') AND object_id = ANY($1::bigint[]) ORDER BY seq`, [[...new Set(writes.map((w) => w.object))]])
    // one event per acknowledged write: the nth update of an object is the nth updated event of that object
    const seqOf = new Map<string, number>()
    const counts = new Map<string, number>()
    for (const e of events) {
      const key = `${e.object_id} ${e.type}`
      const nth = counts.get(key) ?? 0
      counts.set(key, nth + 1)
      seqOf.set(`${key} ${nth}`, e.seq)
    }
    expect(events).toHaveLength(writes.length)
    // a write that began after another was acknowledged committed after it: its number is higher
    let pairs = 0
    for (const a of writes) {
      const seqA = must(seqOf.get(`${a.object} ${a.kind} ${a.nth}`), `the event of ${a.kind} ${a.object} #${a.nth}`)
      for (const b of writes) {
        if (a.acked >= b.started) continue
        pairs++
        expect(seqA, `${a.kind} of ${a.object} was acknowledged before ${b.kind} of ${b.object} began`).toBeLessThan(must(seqOf.get(`${b.object} ${b.kind} ${b.nth}`)))
      }
    }
    expect(pairs).toBeGreaterThan(writes.length)
  })
})

/** The read cache's hits so far on gateway `i`. */
async function cacheHits (i: number): Promise<number> {
  const text = await (await fetch(must(system.gatewayMetrics[i]))).text()
  return Number(must(/^content_read_cache_hits_total (\d+)/m.exec(text), 'the hits counter')[1])
}

describe('read caches of two gateways over two objects processes', () => {
  it('when a write goes through one gateway, then the other serves it fresh within a second, and both keep serving what it did not change from their caches', async () => {
    const LAG_LIMIT_MS = 1_000
    const [s1, s2] = [await create(writer(0), { object_type: 'section', title: 'Fresh one', parents: [1] }), await create(writer(0), { object_type: 'section', title: 'Fresh two', parents: [1] })]
    const a = await create(writer(0), { object_type: 'document', title: 'a-0', parents: [s1] })
    const b = await create(writer(0), { object_type: 'document', title: 'b', parents: [s2] })
    const changed = [`/objects/${a}`, `/objects/${s1}/children`]
    const untouched = [`/objects/${b}`, `/objects/${s2}/children`]
    const titleOf = (r: Reply, id: number) => (r.body.data.object ? r.body.data.object.title : (r.body.data.objects as { id: number, title: string }[]).find((o) => o.id === id)?.title)
    for (let round = 1; round <= 4; round++) {
      const mine = round % 2
      const other = 1 - mine
      // both gateways hold every path (the second read of each is a hit)
      for (const base of system.bases) for (const path of [...changed, ...untouched]) for (let k = 0; k < 2; k++) expect((await http(base, 'GET', path)).status).toBe(200)
      const title = `a-${round}`
      expect((await writer(mine).post('/objects', { id: a, title })).status).toBe(200)
      const acked = performance.now()
      for (const path of changed) expect(titleOf(await http(must(system.bases[mine]), 'GET', path), a), `round ${round}: ${path} on the writing gateway`).toBe(title)
      for (const path of changed) {
        for (;;) {
          if (titleOf(await http(must(system.bases[other]), 'GET', path), a) === title) break
          expect(performance.now() - acked, `round ${round}: the other gateway still served the old ${path}`).toBeLessThan(LAG_LIMIT_MS)
          await sleep(5)
        }
      }
      // what the write did not change is still answered from each gateway's cache
      for (const i of [mine, other]) {
        const hits = await cacheHits(i)
        for (const path of untouched) expect((await http(must(system.bases[i]), 'GET', path)).status).toBe(200)
        expect(await cacheHits(i) - hits, `round ${round}: gateway ${i} dropped answers the write did not change`).toBe(untouched.length)
      }
    }
  })
})

describe('the tree under moves on both replicas', () => {
  /** Parent edges that lead back to where they started (a walk up from every edge), and sections with more than one parent. */
  const treeFaults = () => system.rows<{ cycles: number, twice: number }>(`WITH RECURSIVE up(start, node, depth) AS (
      SELECT object_id, parent_id, 1 FROM objects.tree
      UNION ALL SELECT up.start, t.parent_id, up.depth + 1 FROM up JOIN objects.tree t ON t.object_id = up.node WHERE up.depth < 50)
    SELECT (SELECT count(*)::int FROM up WHERE start = node) AS cycles,
      (SELECT count(*)::int FROM (SELECT t.object_id FROM objects.tree t JOIN objects.objects o ON o.id = t.object_id
        WHERE o.object_type = 'section' GROUP BY t.object_id HAVING count(*) > 1) s) AS twice`)

  it('when two replicas place sections under each other and move a document at once, then never a cycle nor a second parent: each such placement is a 400', async () => {
    for (let round = 0; round < 4; round++) {
      const x = await create(writer(round), { object_type: 'section', title: `x${round}`, parents: [1] })
      const y = await create(writer(round + 1), { object_type: 'section', title: `y${round}`, parents: [x] })
      const z = await create(writer(round), { object_type: 'section', title: `z${round}`, parents: [1] })
      const d = await create(writer(round), { object_type: 'document', title: `d${round}`, parents: [x] })
      const [yx, zx, xy, xyUpdate, dz, dy] = await Promise.all([
        writer(round).post(`/objects/${y}/children`, [{ child_id: x }]),
        writer(round + 1).post(`/objects/${z}/children`, [{ child_id: x }]),
        writer(round + 1).post(`/objects/${x}/children`, [{ child_id: z }]),
        writer(round).post('/objects', { id: x, parents: [y] }),
        // a document may sit under several sections: moving it races the sections' placements
        writer(round + 1).post(`/objects/${z}/children`, [{ child_id: d }]),
        writer(round).post(`/objects/${y}/children`, [{ child_id: d }]),
      ])
      // x under its own child, x or z under a second parent: refused whichever replica ran first
      for (const r of [yx, zx, xy, xyUpdate]) expectError(must(r), 400, 'VALIDATION_FAILED')
      for (const r of [dz, dy]) expect(must(r).status, JSON.stringify(must(r).body)).toBe(201)
      expect((await writer(round).del(`/objects/${x}/children/${d}`)).status).toBe(204)
      for (const base of system.bases) {
        for (const [section, holds] of [[x, false], [y, true], [z, true]] as const) {
          const children = (await http(base, 'GET', `/objects/${section}/children`)).body.data.objects as { id: number }[]
          expect(children.some((c) => c.id === d), `round ${round}: d under ${section}`).toBe(holds)
        }
      }
    }
    expect(await treeFaults()).toEqual([{ cycles: 0, twice: 0 }])
  })
})

describe('a nickname claimed on both replicas at once', () => {
  it('when two creates and two renames race for one nickname, then exactly one wins and each other is a 409 NICKNAME_TAKEN', async () => {
    for (let round = 0; round < 5; round++) {
      const nickname = `contested-${round}`
      const [p, q] = [await create(writer(0), { object_type: 'document', title: `p${round}`, parents: [1] }), await create(writer(1), { object_type: 'document', title: `q${round}`, parents: [1] })]
      const answers = await Promise.all([
        writer(0).post('/objects', { object_type: 'document', title: 'claim', nickname, parents: [1] }),
        writer(1).post('/objects', { object_type: 'document', title: 'claim', nickname, parents: [1] }),
        writer(0).post('/objects', { id: p, nickname }),
        writer(1).post('/objects', { id: q, nickname }),
      ])
      const won = answers.filter((r) => r.status < 300)
      expect(won, `round ${round}: ${answers.map((r) => r.status)}`).toHaveLength(1)
      for (const r of answers) if (r.status >= 300) expectError(r, 409, 'NICKNAME_TAKEN')
      const winner = must(won[0]).body.data.object.id
      for (const base of system.bases) expect((await http(base, 'GET', `/objects/${nickname}`)).body.data.object.id).toBe(winner)
      expect(await system.rows('SELECT id::int FROM objects.objects WHERE nickname = $1', [nickname])).toEqual([{ id: winner }])
    }
  })
})

describe('one Idempotency-Key sent to both replicas at once', () => {
  it('when the same keyed create races through both gateways, then one object is written and every answer is its 201, the repeats replayed', async () => {
    for (let round = 0; round < 4; round++) {
      const key = `replicas-race-${round}-${Date.now()}`
      const title = `keyed ${key}`
      const answers = await Promise.all([0, 1, 2, 3].map((i) => http(must(system.bases[i % 2]), 'POST', '/objects', {
        headers: { authorization: `Bearer ${must(writers.token)}`, 'idempotency-key': key },
        body: { data: { object_type: 'document', title, parents: [1] } },
      })))
      for (const r of answers) expect(r.status, JSON.stringify(r.body)).toBe(201)
      const ids = new Set(answers.map((r) => r.body.data.object.id as number))
      expect(ids.size, `round ${round}: ${[...ids]}`).toBe(1)
      expect(answers.filter((r) => r.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1)
      expect(await system.rows('SELECT id::int FROM objects.objects WHERE title = $1', [title])).toEqual([{ id: [...ids][0] }])
    }
  })
})

describe('one thing claimed, related or deleted on both replicas at once', () => {
  it('when both use one upload token, add one relation or delete one object, then one wins and the other gets its own answer, nothing written twice', async () => {
    const token = must(writers.token)
    for (let round = 0; round < 3; round++) {
      const up = await upload(system.base, token, 'image', 'raced.jpg', await photo(round + 40, 40, 30), 'image/jpeg')
      expect(up.status).toBe(200)
      const title = `raced image ${round} ${Date.now()}`
      const claims = await Promise.all([0, 1].map((i) => writer(i).post('/objects', { object_type: 'image', title, parents: [1], upload_token: up.body.data.upload_token })))
      expect(claims.map((r) => r.status).sort(), JSON.stringify(claims.map((r) => r.body))).toEqual([201, 400])
      expectError(must(claims.find((r) => r.status === 400)), 400, 'UPLOAD_TOKEN_INVALID')
      expect(await system.rows('SELECT count(*)::int AS n FROM objects.objects WHERE title = $1', [title])).toEqual([{ n: 1 }])

      const [p, q] = [await create(writer(0), { object_type: 'document', title: `rel p${round}`, parents: [1] }), await create(writer(1), { object_type: 'document', title: `rel q${round}`, parents: [1] })]
      const related = await Promise.all([writer(0).post(`/objects/${p}/relations/seealso`, [{ related_id: q }]), writer(1).post(`/objects/${p}/relations/seealso`, [{ related_id: q }])])
      expect(related.map((r) => r.status).sort()).toEqual([200, 201])
      expect(await system.rows('SELECT object_id::int, related_id::int FROM objects.relations WHERE object_id IN ($1, $2) ORDER BY object_id', [p, q])).toEqual([{ object_id: p, related_id: q }, { object_id: q, related_id: p }])

      const deleted = await Promise.all([writer(0).del(`/objects/${p}`), writer(1).del(`/objects/${p}`)])
      expect(deleted.map((r) => r.status).sort()).toEqual([204, 404])
      expectError(must(deleted.find((r) => r.status === 404)), 404, 'OBJECT_NOT_FOUND')
      expect(await system.rows("SELECT count(*)::int AS n FROM objects.changes WHERE object_id = $1 AND type = 'object.trashed'", [p])).toEqual([{ n: 1 }])
    }
  })
})

describe('webhooks with two objects processes', () => {
  it('when writes go through both replicas, then one delivery loop delivers each subscribed event exactly once, in order', async () => {
    const tool = spawnSync(process.execPath, ['services/admin/dist/main.js', 'webhooks', 'add', receiverUrl, '--events', 'object.created,object.updated', '--json'], {
      cwd: ROOT, encoding: 'utf8', timeout: 60_000,
      env: { ...process.env, OBJECTS_SERVICE_ADDR: system.objectsAddr, AUTH_SERVICE_ADDR: system.authAddr, DATA_DIR: system.dataDir, ADMIN_PASSWORD: ADMIN.password },
    })
    expect(tool.status, tool.stderr).toBe(0)
    const [{ from }] = await system.rows<{ from: number }>('SELECT after_seq::int AS from FROM objects.webhooks') as [{ from: number }]
    const ids = await Promise.all(Array.from({ length: 4 }, async (_, w) => {
      const id = await create(writer(w), { object_type: 'document', title: `hooked ${w}`, parents: [1] })
      for (let k = 0; k < 2; k++) expect((await writer(w + 1).post('/objects', { id, title: `hooked ${w} v${k}` })).status).toBe(200)
      return id
    }))
    const wanted = await system.rows<{ seq: number }>(`SELECT seq::int FROM objects.changes WHERE seq > $1 AND type IN ('object.created', 'object.updated') ORDER BY seq`, [from])
    expect(wanted.length).toBe(ids.length * 3)
    await vi.waitFor(() => expect(received.size).toBe(wanted.length), { timeout: 15_000, interval: 50 })
    // past a few more delivery rounds of both processes: still each once
    await sleep(1_500)
    const deliveries = [...received.values()]
    expect(deliveries.map((d) => d.seq)).toEqual(wanted.map((w) => w.seq))
    expect(deliveries.filter((d) => d.times !== 1)).toEqual([])
    expect(await system.rows("SELECT status, count(*)::int AS n FROM objects.webhook_deliveries GROUP BY status")).toEqual([{ status: 'delivered', n: wanted.length }])
  })
})

describe('scheduled publication with two objects processes', () => {
  const windowEvents = () => system.rows<{ type: string, object_id: number }>("SELECT type, object_id::int FROM objects.changes WHERE type IN ('object.published', 'object.unpublished') ORDER BY seq")

  it('when windows open and close, then each boundary is announced once between the two, and readers see the object exactly inside its window', async () => {
    const anonymous = client(system.base, '')
    const start = Date.now() + 2_000
    const ids: number[] = []
    for (let i = 0; i < 4; i++) {
      const opens = start + i * 200
      ids.push(await create(writer(i), {
        object_type: 'document', title: `Window ${i}`, parents: [1],
        start_date: new Date(opens).toISOString(), end_date: new Date(opens + 999).toISOString(),
      }))
    }
    expect((await anonymous.get(`/objects/${ids[0]}`)).status).toBe(404)
    await vi.waitFor(async () => expect((await windowEvents()).filter((e) => e.type === 'object.published')).toHaveLength(ids.length), { timeout: 10_000, interval: 100 })
    expect((await anonymous.get(`/objects/${ids.at(-1)}`)).status).toBe(200)
    await vi.waitFor(async () => expect((await windowEvents()).filter((e) => e.type === 'object.unpublished')).toHaveLength(ids.length), { timeout: 10_000, interval: 100 })
    for (const base of system.bases) expect((await http(base, 'GET', `/objects/${ids[0]}`)).status).toBe(404)
    // past both processes' next rounds: still once each
    await sleep(1_500)
    const events = (await windowEvents()).map((e) => `${e.type} ${e.object_id}`)
    expect([...events].sort()).toEqual(ids.flatMap((id) => [`object.published ${id}`, `object.unpublished ${id}`]).sort())
  })
})

describe('an objects process killed under writes', () => {
  it('when one objects process is SIGKILLed, then no acknowledged write is lost and the other keeps serving', async () => {
    const acknowledged: { id: number, title: string }[] = []
    const refused: number[] = []
    let writing = true
    const loops = [0, 1, 2, 3].map(async (w) => {
      for (let n = 0; writing; n++) {
        const title = `survivor ${w}-${n}`
        const res = await writer(w).post('/objects', { object_type: 'document', title, parents: [1] })
        if (res.status === 201) acknowledged.push({ id: res.body.data.object.id, title })
        else {
          // a write in flight to the killed process: unavailable, never anything else
          expectError(res, 503, 'SERVICE_UNAVAILABLE')
          refused.push(res.status)
        }
      }
    })
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThanOrEqual(10), { timeout: 10_000, interval: 20 })
    await system.killObjects(0)
    const atKill = acknowledged.length
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThanOrEqual(atKill + 20), { timeout: 10_000, interval: 20 })
    writing = false
    await Promise.all(loops)
    // every acknowledged write reads back through both gateways, and its events are numbered (the survivor numbers what the killed one left)
    for (const { id, title } of acknowledged) {
      for (const base of system.bases) expect((await http(base, 'GET', `/objects/${id}`)).body.data.object.title).toBe(title)
    }
    await vi.waitFor(() => expectGaplessOutbox(), { timeout: 5_000, interval: 100 })
    const created = await system.rows<{ id: number }>("SELECT object_id::int AS id FROM objects.changes WHERE type = 'object.created' AND object_id = ANY($1::bigint[])", [acknowledged.map((a) => a.id)])
    expect(created).toHaveLength(acknowledged.length)
    // each gateway's feed now follows the survivor: a write through one is read fresh through the other
    const last = must(acknowledged.at(-1)).id
    for (const mine of [0, 1]) {
      for (const base of system.bases) for (let k = 0; k < 2; k++) await http(base, 'GET', `/objects/${last}`)
      const title = `after the kill ${mine}`
      expect((await writer(mine).post('/objects', { id: last, title })).status).toBe(200)
      const acked = performance.now()
      while ((await http(must(system.bases[1 - mine]), 'GET', `/objects/${last}`)).body.data.object.title !== title) {
        expect(performance.now() - acked, 'the other gateway still served the state before the write').toBeLessThan(1_000)
        await sleep(5)
      }
    }
    console.log(`SIGKILL under writes: ${acknowledged.length} writes acknowledged (${acknowledged.length - atKill} after the kill), ${refused.length} refused`)
    await system.startObjects(0)
  })
})
