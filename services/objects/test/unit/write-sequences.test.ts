// The writes core composes of a store's steps (core/writes/*), checked against steps that log what
// they are asked: which rows a write touches, in which order, and where its events fall among them (an
// event's surroundings are read when it is appended). The contract suites check the same writes on
// every store; these pin the order itself, for stores whose steps answer at once or asynchronously.
import { describe, expect, it } from 'vitest'
import type { ChangeDraft } from '../../src/core/change-events.js'
import { DEFAULT_COLUMNS } from '../../src/core/object-input.js'
import { emptyDetails } from '../../src/core/types.js'
import { runSteps, txOf, type Steps, type Tx } from '../../src/core/unit-of-work.js'
import { WRITE_STEPS, type WriteSteps } from '../../src/core/write-steps.js'
import { addChildren, setPriority } from '../../src/core/writes/links.writes.js'
import { createObject, removeObject, setPermissions, updateObject } from '../../src/core/writes/objects.writes.js'
import { savedView } from '../../src/core/writes/saved-view.js'
import { purgeFromTrash, putInTrash, restoreFromTrash } from '../../src/core/writes/trash.writes.js'
import { announceWindows } from '../../src/core/writes/schedule.writes.js'

const drafted = (d: ChangeDraft) => `${d.type} ${d.object_id}${'parent_id' in d ? ` < ${d.parent_id}` : ''}${'related_id' in d ? ` > ${d.related_id}` : ''}${
  'before' in d && d.before !== undefined ? ` (was ${d.before.status} for ${d.before.read_groups.join() || 'all'})` : ''}`

/** What the fake store holds: the answers its reads give. */
interface Fake {
  ancestors?: [number, number][]
  existing?: number[]
  trashed?: number[]
  /** objects a child sits under */
  parents?: number[]
  positions?: Record<string, number>
  watermark?: number | null
}

/**
 * Steps that answer from `fake` and log every call (events by type); `later`: each answers a promise, as
 * a store over the network does.
 */
function loggingSteps (fake: Fake, later = false) {
  const log: string[] = []
  const answers: Partial<Record<keyof WriteSteps, (...args: never[]) => unknown>> = {
    record: (id: number) => ({ ...DEFAULT_COLUMNS, id, object_type: 'document', status: 'on', title: `t${log.length}`, file: null, read_groups: [], write_groups: [] }),
    exists: (id: number) => (fake.existing ?? []).includes(id),
    access: () => ({ status: 'on', read_groups: ['alpha'], write_groups: [] }),
    isAncestor: (a: number, d: number) => a === d || (fake.ancestors ?? []).some(([x, y]) => x === a && y === d),
    hasChildren: (p: number) => (fake.parents ?? []).includes(p),
    position: (p: number, c: number) => fake.positions?.[`${p}/${c}`] ?? null,
    insertObject: () => 9,
    updateObject: () => true,
    setPermissions: () => true,
    placeChild: (p: number, c: number, priority: number | null) => ({ child_id: c, priority: priority ?? 1, created: fake.positions?.[`${p}/${c}`] === undefined }),
    saveRelation: (_id: number, _name: string, _inverse: string, item: { related_id: number }) => ({ related_id: item.related_id, priority: 1, params: null, created: true }),
    addRevision: () => 3,
    inTrash: (id: number) => (fake.trashed ?? []).includes(id),
    takeFromTrash: (id: number) => ((fake.trashed ?? []).includes(id) ? [{ parent_id: 2, priority: 4 }, { parent_id: 3, priority: 1 }] : null),
    advanceWatermark: () => fake.watermark ?? null,
    windowRows: () => [{ id: 5, start_date: 1_500, end_date: null, modified: 10 }],
    details: (ids: number[]) => new Map(ids.map((id) => [id, emptyDetails()])),
    relationCounts: () => new Map(),
  }
  const steps = Object.fromEntries(WRITE_STEPS.map((name) => [name, (...args: unknown[]) => {
    if (name === 'appendChanges') log.push(`event ${(args[0] as ChangeDraft[]).map(drafted).join(', ')}`)
    else log.push(`${name} ${args.filter((a) => typeof a === 'number').join(' ')}`.trim())
    const answer = (answers[name] as ((...a: unknown[]) => unknown) | undefined)?.(...args)
    return later ? Promise.resolve(answer) : answer
  }])) as unknown as WriteSteps
  return { steps, log }
}

const run = <T>(steps: WriteSteps, work: (tx: Tx) => Steps<T>, revisionsKeep: number | null = null) =>
  runSteps(work(txOf(steps, { revisionsKeep })))

const attach = (related_id: number) => ({ name: 'attach', inverse: 'attached_to', related_id, priority: null, params: null })
const newDocument = { object_type: 'document' as const, nickname: 'n', status: 'on' as const, columns: DEFAULT_COLUMNS, read_groups: [], write_groups: [], user_id: 1, extras: {} }

describe('writes composed of steps', () => {
  it('when an object is created with links, a claim and a key, then its creation is recorded once its row and links are in (the access an event records holds its parents), before the events of its links and in one call with them, then its revision, claim and key', () => {
    const { steps, log } = loggingSteps({})
    const saved = run(steps, (tx) => createObject(tx, {
      ...newDocument, links: { parents: [2], relations: [attach(8)] }, claim: { token_hash: 'h', now: 1 },
      idempotency: { user_id: 1, key: 'k', request_hash: 'r', at: 1 },
    }, 100))
    expect(saved).toMatchObject({ id: 9, record: { id: 9 } })
    expect(log).toEqual([
      'insertObject 100', 'placeChild 2 9', 'saveRelation 9',
      // one call: the store reads what the events need from one state
      'event object.created 9, child.added 9 < 2, relation.created 9 > 8',
      // the key replaces a row of it that expired: one created a day or more before it
      'record 9', 'addRevision 9', 'claimUpload', 'keepOutcome -86399999',
    ])
  })

  it('when an update attaches a file and adds links, then its own events come once the links\' rows are written and before their events, a parent it had records nothing, and a new parent is checked for a cycle in the transaction', () => {
    const { steps, log } = loggingSteps({ positions: { '2/5': 1 } })
    expect(run(steps, (tx) => updateObject(tx, 5, {
      columns: { title: 'x' }, user_id: 1, extras: {}, claim: { token_hash: 'h', now: 1 },
      links: { parents: [2, 3], relations: [attach(8)] },
    }, 100), 2)).toMatchObject({ id: 5, record: { id: 5 } })
    expect(log).toEqual([
      'record 5', 'updateObject 5 100',
      'isAncestor 5 2', 'placeChild 2 5', 'isAncestor 5 3', 'placeChild 3 5', 'saveRelation 5',
      'event object.updated 5 (was on for all), file.changed 5, child.added 5 < 3, relation.created 5 > 8',
      'record 5', 'addRevision 5', 'dropRevisions 5 2', 'claimUpload',
    ])
  })

  it('when a save is answered in its transaction, then the answer takes the record its revision read: one read of it, not two', () => {
    const { steps, log } = loggingSteps({})
    const vis = { statuses: ['on' as const], at: null, groups: [] }
    const view = run(steps, function * (tx) { return yield * savedView(tx, yield * createObject(tx, newDocument, 100), vis) })
    expect(view).toMatchObject({ id: 9 })
    expect(log.filter((line) => line.startsWith('record'))).toEqual(['record 9'])
    // without a revision, nothing was read: the answer reads the object itself
    const off = loggingSteps({})
    run(off.steps, function * (tx) { return yield * savedView(tx, yield * createObject(tx, newDocument, 100), vis) }, 0)
    expect(off.log.filter((line) => line.startsWith('record'))).toEqual(['record 9'])
  })

  it('when revisions are kept for none, then an update reads no record for them and stores none; it reads who could read the object before it, for its event', () => {
    const { steps, log } = loggingSteps({})
    run(steps, (tx) => updateObject(tx, 5, { columns: { title: 'x' }, user_id: 1, extras: {} }, 100), 0)
    expect(log).toEqual(['access 5', 'updateObject 5 100', 'event object.updated 5 (was on for alpha)'])
  })

  it('when an object\'s permissions are set, then who could read it before is read before they change, and its event carries it', () => {
    const { steps, log } = loggingSteps({})
    run(steps, (tx) => setPermissions(tx, 5, ['beta'], []))
    expect(log).toEqual(['access 5', 'setPermissions 5', 'event permissions.changed 5 (was on for alpha)'])
  })

  it('when a placement would put an object under its own descendant, then the write fails before it places anything', () => {
    const { steps, log } = loggingSteps({ ancestors: [[5, 2]] })
    expect(() => run(steps, (tx) => addChildren(tx, 2, [{ child_id: 7, priority: null }, { child_id: 5, priority: null }]))).toThrow(/cannot be placed under itself or its own descendant/)
    expect(log).toEqual(['isAncestor 7 2', 'placeChild 2 7', 'isAncestor 5 2'])
  })

  it('when a child that is not there gets a priority, then nothing is written or recorded', () => {
    const { steps, log } = loggingSteps({})
    expect(run(steps, (tx) => setPriority(tx, 2, 5, 3))).toBe(false)
    expect(log).toEqual(['position 2 5'])
  })

  it('when an object is deleted, trashed or purged, then its event is recorded before its rows go; a missing one records nothing', () => {
    const { steps, log } = loggingSteps({ existing: [5], trashed: [6] })
    expect(run(steps, (tx) => removeObject(tx, 5))).toBe('removed')
    expect(run(steps, (tx) => putInTrash(tx, 5, 1, 100))).toBe('trashed')
    expect(run(steps, (tx) => purgeFromTrash(tx, 6))).toBe('purged')
    expect(run(steps, (tx) => removeObject(tx, 7))).toBe('absent')
    expect(log).toEqual([
      'exists 5', 'event object.deleted 5', 'deleteObject 5', 'dropRevisions 5',
      'hasChildren 5', 'exists 5', 'event object.trashed 5', 'moveToTrash 5 1 100',
      'inTrash 6', 'event object.deleted 6', 'purgeTrashed 6', 'dropRevisions 6',
      'exists 7',
    ])
  })

  it('when a child was placed under an object after core checked it had none, then trashing it writes nothing', () => {
    const { steps, log } = loggingSteps({ existing: [5], parents: [5] })
    expect(run(steps, (tx) => putInTrash(tx, 5, 1, 100))).toBe('has children')
    expect(log).toEqual(['hasChildren 5'])
  })

  it('when an object is trashed, then its children are counted (the tree\'s lock on PostgreSQL) before the object itself is taken (its row lock)', () => {
    const { steps, log } = loggingSteps({})
    expect(run(steps, (tx) => putInTrash(tx, 9, 1, 100))).toBe('absent')
    expect(log).toEqual(['hasChildren 9', 'exists 9'])
  })

  it('when an object is restored, then it goes back under the parents it had that exist, at their priorities, or under those given, before its event', () => {
    const had = loggingSteps({ trashed: [6], existing: [3] })
    expect(run(had.steps, (tx) => restoreFromTrash(tx, 6, null))).toBe('restored')
    expect(had.log).toEqual(['takeFromTrash 6', 'exists 2', 'exists 3', 'placeChild 3 6 1', 'event object.restored 6'])
    const given = loggingSteps({ trashed: [6], existing: [4] })
    expect(run(given.steps, (tx) => restoreFromTrash(tx, 6, [4]))).toBe('restored')
    expect(given.log).toEqual(['takeFromTrash 6', 'exists 4', 'placeChild 4 6', 'event object.restored 6'])
  })

  it('when a round moves the watermark, then it records the boundaries it found; the first round, or one not past it, records nothing', () => {
    const moved = loggingSteps({ watermark: 1_000 })
    expect(run(moved.steps, (tx) => announceWindows(tx, 2_000, ['on']))).toBe(1)
    expect(moved.log).toEqual(['advanceWatermark 2000', 'windowRows 1000 2000', 'event object.published 5'])
    const first = loggingSteps({ watermark: null })
    expect(run(first.steps, (tx) => announceWindows(tx, 2_000, ['on']))).toBe(0)
    expect(first.log).toEqual(['advanceWatermark 2000'])
  })

  it('when every step answers a promise, then the same steps run in the same order and the answer is a promise', async () => {
    const now = loggingSteps({})
    const later = loggingSteps({}, true)
    const write = { ...newDocument, links: { parents: [2], relations: [attach(8)] } }
    const atOnce = run(now.steps, (tx) => createObject(tx, write, 100))
    const pending = run(later.steps, (tx) => createObject(tx, write, 100))
    expect(atOnce).toMatchObject({ id: 9 })
    expect(pending).toBeInstanceOf(Promise)
    expect((await pending).id).toBe(9)
    expect(later.log).toEqual(now.log)
  })

  it('when a step answering a promise rejects, then the failure is thrown into the composition at that step', async () => {
    const { steps, log } = loggingSteps({}, true)
    steps.placeChild = () => Promise.reject(new Error('gone'))
    await expect(run(steps, (tx) => addChildren(tx, 2, [{ child_id: 7, priority: null }]))).rejects.toThrow('gone')
    expect(log).toEqual(['isAncestor 7 2'])
    const caught = run(steps, function * (tx) {
      try {
        yield * tx.placeChild(2, 7, null)
        return 'placed'
      } catch (err) {
        return `caught ${(err as Error).message}`
      }
    })
    expect(await caught).toBe('caught gone')
  })
})
