import type { ObjectRef } from '../core/object-ref.js'
import type { ObjectsPort, ObjectsStore } from '../core/ports.js'
import type { ObjectRecord } from '../core/types.js'

interface Waiter { resolve: (record: ObjectRecord | null) => void, reject: (err: unknown) => void }

/**
 * The store as the reads of one coalesced batch see it: an object that several members name is read
 * once, and the objects named by id in one turn are read by one statement (`listByIds`) instead of a
 * statement each. Records are never changed by the reads that share them; every other port is the store's.
 */
export function sharedReads (store: ObjectsStore): ObjectsStore {
  const objects = store.objects
  const byRef = new Map<string, Promise<ObjectRecord | null>>()
  let wanted: Map<number, Waiter[]> | null = null

  const readWanted = () => {
    const batch = wanted
    wanted = null
    if (batch === null) return
    objects.listByIds([...batch.keys()]).then((rows) => {
      const byId = new Map(rows.map((r) => [r.id, r]))
      for (const [id, waiters] of batch) for (const w of waiters) w.resolve(byId.get(id) ?? null)
    }, (err: unknown) => {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err)
    })
  }

  const byId = (id: number) => new Promise<ObjectRecord | null>((resolve, reject) => {
    if (wanted === null) {
      wanted = new Map()
      setImmediate(readWanted)
    }
    const waiters = wanted.get(id)
    if (waiters) waiters.push({ resolve, reject })
    else wanted.set(id, [{ resolve, reject }])
  })

  // the store's port stays the prototype: its other methods, and any `this` they use, are its own
  const shared = Object.create(objects) as ObjectsPort
  shared.get = (ref: ObjectRef) => {
    const key = 'id' in ref ? `#${ref.id}` : `@${ref.nickname}`
    let record = byRef.get(key)
    if (record === undefined) {
      record = 'id' in ref ? byId(ref.id) : objects.get(ref)
      byRef.set(key, record)
    }
    return record
  }
  return { ...store, objects: shared }
}
