import type * as grpc from '@grpc/grpc-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_COLUMNS, type ObjectWrite } from '../../src/core/object-input.js'
import type { ListQuery, ObjectsStore } from '../../src/core/ports.js'
import type { ReadDeps } from '../../src/core/read-context.js'
import { withDependencies, type Tracking } from '../../src/rpc/read-deps.js'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'

const q: ListQuery = { visibility: { statuses: ['on'], at: null, groups: [] }, filter: { object_types: [], query: '' }, offset: 0, limit: 10 }
const write = (object_type: ObjectWrite['object_type'], title: string, parents: number[] = []): ObjectWrite => ({
  object_type, nickname: null, status: 'on', columns: { ...DEFAULT_COLUMNS, title }, read_groups: [], write_groups: [], user_id: 1, extras: {},
  links: { parents, relations: [] },
})

describe('the objects a read depends on', () => {
  let store: ObjectsStore
  let deps: ReadDeps
  let section: number
  let doc: number
  let image: number
  beforeAll(async () => {
    store = openSqliteStore(':memory:', { publicationNickname: 'publication' })
    deps = { store, now: Date.now, visibility: { visibleStatuses: ['on'], windowFilter: true } }
    section = await store.objects.create(write('section', 'S', [1]), 1)
    doc = await store.objects.create(write('document', 'D', [section]), 1)
    image = await store.objects.create(write('image', 'I'), 1)
    await store.relations.save(doc, 'attach', 'attached_to', [{ related_id: image, priority: null, params: null }])
  })
  afterAll(async () => { await store.close() })

  /** The ids the answer's `x-depends-on` names after `read`, in no particular order. */
  async function dependsOn (read: (store: ObjectsStore) => Promise<unknown>): Promise<number[]> {
    let header = ''
    const call = { sendMetadata: (m: grpc.Metadata) => { header = String(m.get('x-depends-on')[0] ?? '') } } as unknown as grpc.ServerUnaryCall<unknown, unknown>
    await withDependencies(call, deps, (d) => read(d.store))
    return header === '' ? [] : header.split(',').map(Number).sort((a, b) => a - b)
  }

  it.each<[string, (s: ObjectsStore) => Promise<unknown>, () => number[]]>([
    ['an object by id', (s) => s.objects.get({ id: doc }), () => [doc]],
    ['an object that does not exist', (s) => s.objects.get({ id: 999 }), () => []],
    ['records, details and types', async (s) => Promise.all([s.objects.listByIds([doc]), s.objects.details([image]), s.objects.typesOf([section])]), () => [section, doc, image]],
    ['children', (s) => s.tree.children(section, 'all', q), () => [section, doc]],
    ['descendants', (s) => s.tree.descendants(1, 'id', q), () => [1, section, doc]],
    ['parents and ancestors', async (s) => Promise.all([s.tree.parents(doc), s.tree.ancestors(section)]), () => [1, section, doc]],
    ['child counts and positions', async (s) => Promise.all([s.tree.childCounts([section], q.visibility), s.tree.position(1, section)]), () => [1, section]],
    ['whether there are children, whether an ancestor', async (s) => Promise.all([s.tree.hasChildren(section), s.tree.isAncestor(1, doc)]), () => [1, section, doc]],
    ['related objects', (s) => s.relations.list(doc, 'attach', q), () => [doc, image]],
    ['one relation', (s) => s.relations.get(image, 'attached_to', doc), () => [doc, image]],
    ['relation counts and neighbours', async (s) => Promise.all([s.relations.counts([doc], q.visibility), s.relations.neighbours(image)]), () => [doc, image]],
    ['look-ups no read answer is made from', async (s) => Promise.all([s.objects.nicknamesTaken(['s']), s.vocabulary.existingCategories(['c']), s.changes.bounds()]), () => []],
  ])('when a read asks for %s, then the answer names the objects looked at', async (_name, read, expected) => {
    expect(await dependsOn(read)).toEqual(expected())
  })

  it('when a write goes through a read\'s view, then it reaches the store and names nothing', async () => {
    expect(await dependsOn((s) => s.objects.setPermissions(image, [], []))).toEqual([])
    expect(await store.objects.get({ id: image })).toMatchObject({ read_groups: [] })
  })

  it('when a port method has no decision, then its tracking does not compile', () => {
    interface Port { find(id: number): Promise<{ id: number } | null>, save(id: number): Promise<void> }
    const find = (found: { id: number } | null) => (found ? [found.id] : [])
    // @ts-expect-error `save` is neither tracked nor declared untracked
    const partial: Tracking<Port> = { find }
    // @ts-expect-error an untracked method is a write or not for reads
    const vague: Tracking<Port> = { find, save: 'later' }
    const whole: Tracking<Port> = { find, save: 'write' }
    expect([partial, vague, whole].map((t) => Object.keys(t).length)).toEqual([1, 2, 2])
  })
})
