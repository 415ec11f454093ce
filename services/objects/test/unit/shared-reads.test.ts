import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { DEFAULT_COLUMNS, type ObjectWrite } from '../../src/core/object-input.js'
import type { ObjectsStore } from '../../src/core/ports.js'
import type { Visibility } from '../../src/core/types.js'
import { sharedReads } from '../../src/rpc/shared-reads.js'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'

const write = (object_type: ObjectWrite['object_type'], title: string, extras: ObjectWrite['extras'] = {}): ObjectWrite => ({
  object_type, nickname: null, status: 'on', columns: { ...DEFAULT_COLUMNS, title }, read_groups: [], write_groups: [], user_id: 1, extras,
  links: { parents: [1], relations: [] },
})
const PUBLIC: Visibility = { statuses: ['on'], at: null, groups: [] }
const EDITORS: Visibility = { statuses: ['on', 'off'], at: null, groups: ['editors'] }

describe('the store as the members of one batch share it', () => {
  let store: ObjectsStore
  let docs: number[]
  let image: number
  beforeAll(async () => {
    store = openSqliteStore(':memory:', { publicationNickname: 'publication' })
    docs = []
    for (let i = 0; i < 4; i++) docs.push(await store.objects.create(write('document', `D${i}`, { custom_properties: { n: String(i) }, tags: [`t${i}`] }), 1))
    image = await store.objects.create(write('image', 'I'), 1)
    await store.relations.save(docs[0] as number, 'attach', 'attached_to', [{ related_id: image, priority: null, params: null }])
  })
  afterAll(async () => { await store.close() })
  afterEach(() => { vi.restoreAllMocks() })

  /** A shared view of the store whose underlying reads are counted. */
  function counted () {
    const calls = {
      listByIds: vi.spyOn(store.objects, 'listByIds'),
      details: vi.spyOn(store.objects, 'details'),
      counts: vi.spyOn(store.relations, 'counts'),
    }
    return { shared: sharedReads(store), calls }
  }

  it('when members ask for objects, details and relation counts by id in one turn, then each is one store read and each member gets its own ids as its own call would', async () => {
    const [a, b, c] = docs as [number, number, number]
    const expected = await Promise.all([store.objects.details([a]), store.objects.details([b, c]), store.relations.counts([a], PUBLIC), store.relations.counts([b], PUBLIC)])
    const { shared, calls } = counted()
    const [ra, rb, da, dbc, ca, cb] = await Promise.all([
      shared.objects.get({ id: a }), shared.objects.get({ id: b }),
      shared.objects.details([a]), shared.objects.details([b, c]),
      shared.relations.counts([a], PUBLIC), shared.relations.counts([b], PUBLIC),
    ])
    expect([ra?.id, rb?.id]).toEqual([a, b])
    expect(da).toEqual(expected[0])
    expect(dbc).toEqual(expected[1])
    expect([...da.keys()]).toEqual([a])
    expect(ca).toEqual(expected[2])
    expect(ca.get(a)?.get('attach')).toBe(1)
    expect(cb).toEqual(expected[3])
    expect(calls.listByIds).toHaveBeenCalledTimes(1)
    expect(calls.details).toHaveBeenCalledTimes(1)
    expect(calls.details.mock.calls[0]?.[0].sort()).toEqual([a, b, c].sort())
    expect(calls.counts).toHaveBeenCalledTimes(1)
  })

  it('when members count relations under different visibilities, then each visibility is its own read', async () => {
    const { shared, calls } = counted()
    await Promise.all([shared.relations.counts([docs[0] as number], PUBLIC), shared.relations.counts([docs[1] as number], EDITORS)])
    expect(calls.counts.mock.calls.map(([ids, vis]) => [ids, vis])).toEqual([[[docs[0]], PUBLIC], [[docs[1]], EDITORS]])
  })

  it('when the shared read fails, then every member that asked gets the failure, and the next turn reads again', async () => {
    const { shared, calls } = counted()
    calls.details.mockRejectedValueOnce(new Error('disk gone'))
    const failing = [shared.objects.details([docs[0] as number]), shared.objects.details([docs[1] as number])]
    await expect(Promise.all(failing.map(async (p) => p.then(() => 'ok', (e: Error) => e.message)))).resolves.toEqual(['disk gone', 'disk gone'])
    expect((await shared.objects.details([docs[2] as number])).get(docs[2] as number)?.custom_properties).toEqual({ n: '2' })
    expect(calls.details).toHaveBeenCalledTimes(2)
  })

  it('when a member asks for no ids, then it is answered without waiting for the turn', async () => {
    const { shared, calls } = counted()
    // queued before the call: it runs before any end-of-turn read the call could queue
    const turnEnded = new Promise((resolve) => setImmediate(() => resolve('the turn ended')))
    const asked = shared.objects.details([])
    const first = await Promise.race([asked.then(() => 'answered'), turnEnded])
    expect(first).toBe('answered')
    expect((await asked).size).toBe(0)
    expect(calls.details.mock.calls).toEqual([[[]]])
  })
})
