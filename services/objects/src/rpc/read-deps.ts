import { sendHeaders } from '@content/platform'
import { RESPONSE_HEADERS } from '@content/protos'
import type * as grpc from '@grpc/grpc-js'
import { isReference } from '../core/list-query.js'
import type { ReadDeps } from '../core/read-context.js'
import { stillWantedBy, type StillWanted } from '../core/still-wanted.js'
import type {
  ChangesPort, IdempotencyPort, ListsPort, ObjectsPort, ObjectsStore, RelationsPort, RevisionsPort, SchedulePort, TrashPort, TreePort, UploadsPort, VocabularyPort, WebhooksPort,
} from '../core/ports.js'

type Seen = Set<number>

/**
 * Where a read's answer headers go, and whether its caller still waits (deadline, cancellation): its own
 * call, or its place in a coalesced batch. A sink without them is waited for to the end.
 */
export type HeaderSink = Pick<grpc.ServerUnaryCall<unknown, unknown>, 'sendMetadata'> & Partial<Pick<grpc.ServerUnaryCall<unknown, unknown>, 'getDeadline' | 'cancelled'>>

/** The deadline of a call in epoch ms (Infinity: none). */
const deadlineMs = (deadline: grpc.Deadline | undefined): number => (deadline === undefined ? Infinity : deadline instanceof Date ? deadline.getTime() : deadline)

/** Whether the caller of `call` still waits, checked between a read's stages and before its answer is serialized. */
const stillWantedOf = (call: HeaderSink): StillWanted => stillWantedBy(() => ({ deadlineMs: deadlineMs(call.getDeadline?.()), cancelled: call.cancelled === true }))

/** Why a method notes no object: it changes the store, or no read answer is made from what it answers. */
type Untracked = 'write' | 'not for reads'

/**
 * A decision for every method of a port: a read gives the ids of the objects its answer depends on
 * (from the answer and the call's arguments); any other method says why it has none. A method added
 * to a port without a decision here does not compile.
 */
export type Tracking<P> = {
  readonly [K in keyof P]-?: P[K] extends (...args: infer A) => Promise<infer R> ? ((value: R, ...args: A) => Iterable<number>) | Untracked : never
}

type Method = (...args: unknown[]) => Promise<unknown>
const PORT = Symbol('port')
const SEEN = Symbol('seen')
interface View { [PORT]: Record<string, Method>, [SEEN]: Seen }

/**
 * The views of a port for one read each, made from its tracking: a view is one object whose shared
 * methods note what the tracked reads looked at and pass the rest through. A port none of whose
 * methods is tracked is its own view.
 */
function tracked<P extends object> (tracking: Tracking<P>): (port: P, seen: Seen) => P {
  const decisions = Object.entries(tracking) as [string, Untracked | ((value: unknown, ...args: unknown[]) => Iterable<number>)][]
  if (decisions.every(([, how]) => typeof how === 'string')) return (port) => port
  class PortView implements View {
    [PORT]: Record<string, Method>;
    [SEEN]: Seen
    constructor (port: P, seen: Seen) {
      this[PORT] = port as unknown as Record<string, Method>
      this[SEEN] = seen
    }
  }
  for (const [name, how] of decisions) {
    const method = typeof how === 'string'
      ? function (this: View, ...args: unknown[]) { return (this[PORT][name] as Method)(...args) }
      : function (this: View, ...args: unknown[]) {
        const seen = this[SEEN]
        return (this[PORT][name] as Method)(...args).then((value) => {
          for (const id of how(value, ...args)) seen.add(id)
          return value
        })
      }
    Object.defineProperty(PortView.prototype, name, { value: method })
  }
  return (port, seen) => new PortView(port, seen) as unknown as P
}

const objectsReads = tracked<ObjectsPort>({
  get: (record) => (record ? [record.id] : []),
  idsAfter: 'not for reads',
  listByIds: (_records, ids) => ids,
  details: (_details, ids) => ids,
  typesOf: (_types, ids) => ids,
  nicknamesTaken: 'not for reads',
  windowDates: 'not for reads',
  setPermissions: 'write',
  create: 'write',
  update: 'write',
  remove: 'write',
})

// a read that lists under an object notes that object, which the events of its children and relations affect
const treeReads = tracked<TreePort>({
  children: (page, parentId) => [parentId, ...page.ids],
  descendants: (page, nodeId) => [nodeId, ...page.ids],
  parents: (ids, id) => [id, ...ids],
  ancestors: (ids, id) => [id, ...ids],
  childCounts: (_counts, ids) => ids,
  position: (_priority, parentId, childId) => [parentId, childId],
  hasChildren: (_has, parentId) => [parentId],
  isAncestor: (_is, ancestorId, descendantId) => [ancestorId, descendantId],
  addChildren: 'write',
  setPriority: 'write',
  removeChild: 'write',
})

const relationsReads = tracked<RelationsPort>({
  list: (page, id) => [id, ...page.items.map((i) => i.related_id)],
  get: (_row, id, _name, relatedId) => [id, relatedId],
  firstOf: (rows, ids) => [...ids, ...[...rows.values()].flatMap((byObject) => [...byObject.values()].flatMap((list) => list.map((r) => r.related_id)))],
  counts: (_counts, ids) => ids,
  neighbours: (ids, id) => [id, ...ids],
  save: 'write',
  replace: 'write',
  remove: 'write',
})

// a list notes the object it lists under, the rows it answers and the objects its references name
const listsReads = tracked<ListsPort>({
  select: (page, scope, selection) => [
    scope.kind === 'related' ? scope.object : scope.node, ...page.rows.map((r) => r.id),
    ...selection.clauses.filter((c) => isReference(c.field)).flatMap((c) => c.values.map(Number)),
  ],
})

const vocabularyReads = tracked<VocabularyPort>({ existingCategories: 'not for reads' })

const uploadsReads = tracked<UploadsPort>({ add: 'write', get: 'not for reads', filesInUse: 'not for reads' })

const changesReads = tracked<ChangesPort>({ after: 'not for reads', bounds: 'not for reads', prune: 'write' })

const webhooksReads = tracked<WebhooksPort>({
  add: 'write',
  list: 'not for reads',
  get: 'not for reads',
  remove: 'write',
  deliveries: 'not for reads',
  delivery: 'not for reads',
  head: 'not for reads',
  enqueue: 'write',
  save: 'write',
  pruneDeliveries: 'write',
  lowestPosition: 'not for reads',
  lease: 'write',
  release: 'write',
})

const idempotencyReads = tracked<IdempotencyPort>({ get: 'not for reads', respond: 'write', prune: 'write' })

// revisions are never read into a cached answer: their reads need write rights, each caller's own
const revisionsReads = tracked<RevisionsPort>({ list: 'not for reads', get: 'not for reads' })

// the trash is never read into a cached answer: its list answers each caller afresh
const trashReads = tracked<TrashPort>({
  put: 'write', list: 'not for reads', get: 'not for reads', restore: 'write', purge: 'write', expired: 'not for reads',
})

// scheduled-publication rounds run beside the service, never inside a read
const scheduleReads = tracked<SchedulePort>({ announce: 'write' })

/** The store as one read sees it: every port through its tracking, the rest of the store as it is. */
function readView (store: ObjectsStore, seen: Seen): ObjectsStore {
  return {
    kind: store.kind,
    storeId: store.storeId,
    objects: objectsReads(store.objects, seen),
    tree: treeReads(store.tree, seen),
    relations: relationsReads(store.relations, seen),
    lists: listsReads(store.lists, seen),
    vocabulary: vocabularyReads(store.vocabulary, seen),
    uploads: uploadsReads(store.uploads, seen),
    changes: changesReads(store.changes, seen),
    webhooks: webhooksReads(store.webhooks, seen),
    idempotency: idempotencyReads(store.idempotency, seen),
    trash: trashReads(store.trash, seen),
    revisions: revisionsReads(store.revisions, seen),
    schedule: scheduleReads(store.schedule, seen),
    committedSeq: store.committedSeq,
    durable: store.durable,
    write: store.write,
    applyFixtures: store.applyFixtures,
    onChange: store.onChange,
    close: store.close,
  }
}

/**
 * Runs a read against a view of the store that notes every object it looks at, and sends those ids
 * as the answer's metadata: a cache keeps the answer until a change event affects one of them.
 */
export async function withDependencies<T> (call: HeaderSink, deps: ReadDeps, read: (deps: ReadDeps) => Promise<T>): Promise<T> {
  const seen: Seen = new Set()
  const stillWanted = stillWantedOf(call)
  const result = await read({ ...deps, store: readView(deps.store, seen), stillWanted })
  // the answer is serialized next: not for a caller that gave up meanwhile
  stillWanted()
  sendHeaders(call, { [RESPONSE_HEADERS.dependsOn]: [...seen].join(',') })
  return result
}

/**
 * Sends the number a write's gateway waits for before its cache serves reads again, and whether the
 * answer is a replay of an idempotency key's first answer.
 */
export function sendChangeSeq (call: HeaderSink, store: ObjectsStore, replayed = false): void {
  sendHeaders(call, { [RESPONSE_HEADERS.changeSeq]: String(store.committedSeq()), ...(replayed ? { [RESPONSE_HEADERS.idempotentReplayed]: 'true' } : {}) })
}
