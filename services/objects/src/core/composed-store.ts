import { TargetGone } from './conflicts.js'
import { expiredAt } from './idempotency.js'
import type { ObjectsStore, StoreAdapter } from './ports.js'
import { txOf, type WriteSettings } from './unit-of-work.js'
import { invalid } from './write-context.js'
import { applyFixtures } from './writes/fixtures.writes.js'
import { addChildren, removeChild, removeRelation, replaceRelation, saveRelations, setPriority } from './writes/links.writes.js'
import { createObject, removeObject, setPermissions, updateObject } from './writes/objects.writes.js'
import { announceWindows } from './writes/schedule.writes.js'
import { purgeFromTrash, putInTrash, restoreFromTrash } from './writes/trash.writes.js'

/**
 * The store core works with: the adapter's reads as they are (its port objects' own methods), and every
 * write composed once of the adapter's steps (core/writes/*), run by its unit of work in one transaction.
 */
export function composeStore (adapter: StoreAdapter, settings: WriteSettings): ObjectsStore {
  const write: ObjectsStore['write'] = async (work) => {
    try {
      return await adapter.write((steps) => work(txOf(steps, settings)))
    } catch (err) {
      // as if the write had come after the deletion: what it links to is not there
      if (err instanceof TargetGone) throw invalid({ data: 'an object the write links to was deleted by a concurrent write; nothing was written' })
      throw err
    }
  }
  const { objects, tree, relations, trash } = adapter
  return {
    kind: adapter.kind,
    storeId: adapter.storeId,
    objects: {
      ...objects,
      setPermissions: (id, read, writeGroups) => write((tx) => setPermissions(tx, id, read, writeGroups)),
      create: (input, now) => write(function * (tx) { return (yield * createObject(tx, input, now)).id }),
      update: (id, patch, now) => write(function * (tx) { return (yield * updateObject(tx, id, patch, now)) !== null }),
      remove: (id) => write((tx) => removeObject(tx, id)),
    },
    tree: {
      ...tree,
      addChildren: (p, items, idempotency) => write((tx) => addChildren(tx, p, items, idempotency)),
      setPriority: (p, c, priority) => write((tx) => setPriority(tx, p, c, priority)),
      removeChild: (p, c) => write((tx) => removeChild(tx, p, c)),
    },
    relations: {
      ...relations,
      save: (id, name, inverse, items, idempotency) => write((tx) => saveRelations(tx, id, name, inverse, items, idempotency)),
      replace: (id, name, inverse, item) => write((tx) => replaceRelation(tx, id, name, inverse, item)),
      remove: (id, name, inverse, rel) => write((tx) => removeRelation(tx, id, name, inverse, rel)),
    },
    trash: {
      ...trash,
      put: (id, userId, now) => write((tx) => putInTrash(tx, id, userId, now)),
      restore: (id, parents) => write((tx) => restoreFromTrash(tx, id, parents)),
      purge: (id) => write((tx) => purgeFromTrash(tx, id)),
    },
    schedule: { announce: (now, statuses) => write((tx) => announceWindows(tx, now, statuses)) },
    lists: adapter.lists,
    vocabulary: adapter.vocabulary,
    uploads: adapter.uploads,
    changes: adapter.changes,
    webhooks: adapter.webhooks,
    idempotency: {
      get: (userId, key, now) => adapter.idempotency.get(userId, key, expiredAt(now)),
      respond: (claim, response) => adapter.idempotency.respond(claim, response),
      prune: (now) => adapter.idempotency.prune(expiredAt(now)),
    },
    revisions: adapter.revisions,
    write,
    applyFixtures: (plan, now) => applyFixtures(adapter, settings, plan, now),
    committedSeq: () => adapter.committedSeq(),
    durable: () => adapter.durable(),
    onChange: (listener) => adapter.onChange(listener),
    close: () => adapter.close(),
  }
}
