import type { ObjectRef } from '../core/object-ref.js'
import type { ObjectsPort, ObjectsStore, RelationsPort } from '../core/ports.js'
import type { ObjectDetails, ObjectRecord, Visibility } from '../core/types.js'

type ByIds<V> = (ids: number[]) => Promise<Map<number, V>>

interface Caller<V> { ids: number[], resolve: (found: Map<number, V>) => void, reject: (err: unknown) => void }

/**
 * `load` as the calls of one turn share it: the ids they ask for are loaded by one call at the turn's
 * end, and each caller gets the entries of its own ids, as its own call would have answered them.
 */
function perTurn<V> (load: ByIds<V>): ByIds<V> {
  let turn: { ids: Set<number>, callers: Caller<V>[] } | null = null
  const loadTurn = () => {
    const { ids, callers } = turn as NonNullable<typeof turn>
    turn = null
    load([...ids]).then((all) => {
      for (const c of callers) {
        const own = new Map<number, V>()
        for (const id of c.ids) {
          const value = all.get(id)
          if (value !== undefined) own.set(id, value)
        }
        c.resolve(own)
      }
    }, (err: unknown) => {
      for (const c of callers) c.reject(err)
    })
  }
  return (ids) => {
    if (ids.length === 0) return load(ids)
    return new Promise((resolve, reject) => {
      if (turn === null) {
        turn = { ids: new Set(), callers: [] }
        setImmediate(loadTurn)
      }
      for (const id of ids) turn.ids.add(id)
      turn.callers.push({ ids, resolve, reject })
    })
  }
}

/**
 * The store as the reads of one coalesced batch see it: an object that several members name is read
 * once, and what the members ask by id in one turn — objects by id, their details, their relation
 * counts (per visibility) — is read by one statement each instead of a statement per member. Nothing
 * read is changed by the reads that share it; every other port method is the store's.
 */
export function sharedReads (store: ObjectsStore): ObjectsStore {
  const objects = store.objects
  const byRef = new Map<string, Promise<ObjectRecord | null>>()
  const records = perTurn<ObjectRecord>(async (ids) => new Map((await objects.listByIds(ids)).map((r) => [r.id, r])))
  const details = perTurn<ObjectDetails>((ids) => objects.details(ids))
  const countsByVisibility = new Map<string, ByIds<Map<string, number>>>()

  // each port stays the prototype of its shared view: its other methods, and any `this` they use, are its own
  const sharedObjects = Object.create(objects) as ObjectsPort
  sharedObjects.get = (ref: ObjectRef) => {
    const key = 'id' in ref ? `#${ref.id}` : `@${ref.nickname}`
    let record = byRef.get(key)
    if (record === undefined) {
      record = 'id' in ref ? records([ref.id]).then((found) => found.get(ref.id) ?? null) : objects.get(ref)
      byRef.set(key, record)
    }
    return record
  }
  sharedObjects.details = details
  const sharedRelations = Object.create(store.relations) as RelationsPort
  sharedRelations.counts = (ids: number[], vis: Visibility) => {
    const key = JSON.stringify(vis)
    let counts = countsByVisibility.get(key)
    if (counts === undefined) {
      counts = perTurn((all) => store.relations.counts(all, vis))
      countsByVisibility.set(key, counts)
    }
    return counts(ids)
  }
  return { ...store, objects: sharedObjects, relations: sharedRelations }
}
