import { sendHeaders } from '@content/platform'
import { RESPONSE_HEADERS } from '@content/protos'
import type * as grpc from '@grpc/grpc-js'
import type { ReadDeps } from '../core/read-context.js'
import type { ObjectsPort, ObjectsStore, RelationsPort, TreePort } from '../core/ports.js'


type Seen = Set<number>

const noting = <T>(seen: Seen, result: Promise<T>, ids: (value: T) => Iterable<number>): Promise<T> =>
  result.then((value) => {
    for (const id of ids(value)) seen.add(id)
    return value
  })

function objectsReads (port: ObjectsPort, seen: Seen): ObjectsPort {
  return {
    ...port,
    get: (ref) => noting(seen, port.get(ref), (r) => (r ? [r.id] : [])),
    listByIds: (ids) => noting(seen, port.listByIds(ids), () => ids),
    details: (ids) => noting(seen, port.details(ids), () => ids),
    typesOf: (ids) => noting(seen, port.typesOf(ids), () => ids),
  }
}

function treeReads (port: TreePort, seen: Seen): TreePort {
  return {
    ...port,
    children: (p, scope, q) => noting(seen, port.children(p, scope, q), (page) => [p, ...page.ids]),
    descendants: (n, order, q) => noting(seen, port.descendants(n, order, q), (page) => [n, ...page.ids]),
    parents: (id) => noting(seen, port.parents(id), (ids) => [id, ...ids]),
    ancestors: (id) => noting(seen, port.ancestors(id), (ids) => [id, ...ids]),
    childCounts: (ids, vis) => noting(seen, port.childCounts(ids, vis), () => ids),
    position: (p, c) => noting(seen, port.position(p, c), () => [p, c]),
    hasChildren: (p) => noting(seen, port.hasChildren(p), () => [p]),
    isAncestor: (a, d) => noting(seen, port.isAncestor(a, d), () => [a, d]),
  }
}

function relationsReads (port: RelationsPort, seen: Seen): RelationsPort {
  return {
    ...port,
    list: (id, name, q) => noting(seen, port.list(id, name, q), (r) => [id, ...r.items.map((i) => i.related_id)]),
    get: (id, name, rel) => noting(seen, port.get(id, name, rel), () => [id, rel]),
    counts: (ids, vis) => noting(seen, port.counts(ids, vis), () => ids),
    neighbours: (id) => noting(seen, port.neighbours(id), (ids) => [id, ...ids]),
  }
}

/**
 * Runs a read against a view of the store that notes every object it looks at, and sends those ids
 * as the answer's metadata: a cache keeps the answer until a change event affects one of them. A read
 * that lists under an object notes that object, which the events of its children and relations affect.
 */
export async function withDependencies<T> (call: grpc.ServerUnaryCall<unknown, unknown>, deps: ReadDeps, read: (deps: ReadDeps) => Promise<T>): Promise<T> {
  const seen: Seen = new Set()
  const store: ObjectsStore = {
    ...deps.store,
    objects: objectsReads(deps.store.objects, seen),
    tree: treeReads(deps.store.tree, seen),
    relations: relationsReads(deps.store.relations, seen),
  }
  const result = await read({ ...deps, store })
  sendHeaders(call, { [RESPONSE_HEADERS.dependsOn]: [...seen].join(',') })
  return result
}

/**
 * Sends the number a write's gateway waits for before its cache serves reads again, and whether the
 * answer is a replay of an idempotency key's first answer.
 */
export function sendChangeSeq (call: grpc.ServerUnaryCall<unknown, unknown>, store: ObjectsStore, replayed = false): void {
  sendHeaders(call, { [RESPONSE_HEADERS.changeSeq]: String(store.committedSeq()), ...(replayed ? { [RESPONSE_HEADERS.idempotentReplayed]: 'true' } : {}) })
}
