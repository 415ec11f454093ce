import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { traceStatements, present } from '@content/platform'
import Database from 'better-sqlite3'
import { DEFAULT_COLUMNS } from '../../core/object-input.js'
import type { ObjectsStore } from '../../core/ports.js'
import type { StoreOptions } from '../store-options.js'
import { UniqueConflict } from '../../core/conflicts.js'
import { PUBLICATION_ID } from '../../core/publication.js'
import { childRemoved, childrenSaved, permissionsSet, relationRemoved, relationReplaced, relationsSaved } from '../../core/write-events.js'
import { loadDetails } from './details.sqlite.js'
import { ensureKeptCounts } from './kept-counts.sqlite.js'
import { applyPlan } from './fixtures.sqlite.js'
import { getRecord, pruneRecords, recordOutcome, storeResponse } from './idempotency.sqlite.js'
import { changeBounds, changesAfter, pruneChanges, recordChange } from './outbox.sqlite.js'
import * as objects from './objects.sqlite.js'
import * as relations from './relations.sqlite.js'
import { Statements } from './rows.sqlite.js'
import { SCHEMA, applyPragmas, registerFunctions } from './schema.sqlite.js'
import { ensureSubtreeOrder } from './subtree-order.sqlite.js'
import { ensureTextIndex } from './text-index.sqlite.js'
import { backgroundTextMerge } from './text-merge.sqlite.js'
import * as tree from './tree.sqlite.js'
import * as uploads from './uploads.sqlite.js'
import * as webhooks from './webhooks.sqlite.js'
import { deleteObject, insertObject, updateObject, type RecordChanges } from './writes.sqlite.js'

/** Opens (creating when needed) the SQLite store in `file` and bootstraps the publication. */
export function openSqliteStore (file: string, options: StoreOptions): ObjectsStore {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
  const db = traceStatements(new Database(file))
  applyPragmas(db, options.sqliteCacheMb)
  registerFunctions(db)
  db.exec(SCHEMA)
  ensureTextIndex(db)
  ensureSubtreeOrder(db)
  ensureKeptCounts(db)
  const st = new Statements(db)
  const clock = options.now ?? Date.now
  bootstrap(st, options.publicationNickname, clock())
  const storeId = storeIdentity(st)
  // a store loaded in bulk before this ran may hold several large segments: merged from the start
  const textMerge = backgroundTextMerge(file, options.onBackgroundError ?? (() => {}))
  textMerge.start()
  const listeners = new Set<() => void>()
  const notify = () => { for (const l of listeners) l() }
  let committed = changeBounds(st).last
  /**
   * Runs `fn` in one transaction, its change events with it, and tells listeners after it commits. A
   * write that appends its events itself (a fixtures plan) is given their time and answers the last number.
   */
  const write = <T>(fn: (record: RecordChanges, at: number, appended: (seq: number) => void) => T): Promise<T> => {
    let result: T
    let last = 0
    const at = clock()
    try {
      result = db.transaction(() => fn((drafts) => { for (const d of drafts) last = recordChange(st, d, at) }, at, (seq) => { last = seq }))()
    } catch (err) {
      return Promise.reject((err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE' ? new UniqueConflict() : err)
    }
    if (last > 0) {
      committed = last
      notify()
    }
    return Promise.resolve(result)
  }
  const read = <T>(fn: () => T): Promise<T> => {
    try {
      return Promise.resolve(fn())
    } catch (err) {
      return Promise.reject(err)
    }
  }
  /** A transaction no read would show (pending uploads, webhooks): listeners are not told. */
  const unseen = <T>(fn: () => T): Promise<T> => read(() => db.transaction(fn)())

  return {
    kind: 'sqlite',
    storeId,
    objects: {
      get: (ref) => read(() => objects.getObject(st, ref)),
      listByIds: (ids) => read(() => objects.listObjectsByIds(st, ids)),
      details: (ids) => read(() => loadDetails(st, ids)),
      typesOf: (ids) => read(() => objects.typesOf(st, ids)),
      nicknamesTaken: (names) => read(() => objects.nicknamesTaken(st, names)),
      windowDates: (now) => read(() => objects.windowDates(st, now)),
      setPermissions: (id, r, w) => write((record) => {
        const changed = objects.setPermissions(st, id, r, w)
        record(permissionsSet(id, changed))
        return changed
      }),
      create: (input, now) => write((record) => {
        const id = insertObject(st, input, now, record)
        uploads.claimUpload(st, input.claim)
        recordOutcome(st, input.idempotency, { kind: 'object', id, created: true })
        return id
      }),
      // an object that is gone is not updated, and its claims are left unused
      update: (id, patch, now) => write((record) => {
        const updated = updateObject(st, id, patch, now, record)
        if (updated) {
          uploads.claimUpload(st, patch.claim)
          recordOutcome(st, patch.idempotency, { kind: 'object', id, created: false })
        }
        return updated
      }),
      remove: (id) => write((record) => (deleteObject(st, id, record) ? 'removed' : 'absent')),
    },
    tree: {
      children: (parentId, scope, q) => read(() => tree.listChildren(st, parentId, scope, q)),
      descendants: (nodeId, order, q) => read(() => tree.listDescendants(st, nodeId, order, q)),
      parents: (id) => read(() => tree.parentsOf(st, id)),
      ancestors: (id) => read(() => tree.ancestorsOf(st, id)),
      childCounts: (ids, vis) => read(() => tree.childCounts(st, ids, vis)),
      position: (p, c) => read(() => tree.positionOf(st, p, c)),
      hasChildren: (p) => read(() => st.one('SELECT 1 FROM tree WHERE parent_id = @p LIMIT 1', { p }) !== undefined),
      isAncestor: (a, d) => read(() => tree.isAncestor(st, a, d)),
      addChildren: (p, items, idempotency) => write((record) => {
        const saved = items.map((i) => tree.placeChild(st, p, i.child_id, i.priority))
        record(childrenSaved(p, saved))
        recordOutcome(st, idempotency, { kind: 'children', items: saved })
        return saved
      }),
      setPriority: (p, c, priority) => write((record) => {
        if (tree.positionOf(st, p, c) === null) return false
        record(childrenSaved(p, [tree.placeChild(st, p, c, priority)]))
        return true
      }),
      removeChild: (p, c) => write((record) => {
        const removed = tree.unplaceChild(st, p, c)
        record(childRemoved(p, c, removed))
        return removed ? 'removed' : 'absent'
      }),
    },
    relations: {
      list: (id, name, q) => read(() => relations.listRelated(st, id, name, q)),
      get: (id, name, rel) => read(() => relations.getRelation(st, id, name, rel)),
      counts: (ids, vis) => read(() => relations.relationCounts(st, ids, vis)),
      neighbours: (id) => read(() => relations.neighbours(st, id)),
      save: (id, name, inverse, items, idempotency) => write((record) => {
        const saved = items.map((i) => relations.saveRelation(st, id, name, inverse, i))
        record(relationsSaved(id, name, saved))
        recordOutcome(st, idempotency, { kind: 'relations', items: saved })
        return saved
      }),
      replace: (id, name, inverse, item) => write((record) => {
        const replaced = relations.replaceRelation(st, id, name, inverse, item)
        record(relationReplaced(id, name, item.related_id, replaced))
        return replaced
      }),
      remove: (id, name, inverse, rel) => write((record) => {
        const removed = relations.removeRelation(st, id, name, inverse, rel)
        record(relationRemoved(id, name, rel, removed))
        return removed ? 'removed' : 'absent'
      }),
    },
    vocabulary: {
      existingCategories: (names) => read(() => objects.existingCategories(st, names)),
    },
    uploads: {
      add: (upload, now) => unseen(() => uploads.addUpload(st, upload, now)),
      get: (hash, now) => read(() => uploads.getUpload(st, hash, now)),
      filesInUse: (keys, now) => read(() => uploads.filesInUse(st, keys, now)),
    },
    changes: {
      after: (seq, limit) => read(() => changesAfter(st, seq, limit)),
      bounds: () => read(() => changeBounds(st)),
      prune: (before, keepAfter) => read(() => pruneChanges(st, before, keepAfter)),
    },
    webhooks: {
      add: (w) => unseen(() => webhooks.addWebhook(st, w)),
      list: () => read(() => webhooks.listWebhooks(st)),
      get: (id) => read(() => webhooks.getWebhook(st, id)),
      remove: (id) => unseen(() => webhooks.removeWebhook(st, id)),
      deliveries: (id, limit) => read(() => webhooks.listDeliveries(st, id, limit)),
      delivery: (id) => read(() => webhooks.getDelivery(st, id)),
      head: (id) => read(() => webhooks.headDelivery(st, id)),
      enqueue: (id, from, to, delivery) => unseen(() => webhooks.enqueueDelivery(st, id, from, to, delivery)),
      save: (delivery) => unseen(() => webhooks.saveDelivery(st, delivery)),
      pruneDeliveries: (before) => unseen(() => webhooks.pruneDeliveries(st, before)),
      lowestPosition: () => read(() => webhooks.lowestPosition(st)),
      lease: (name, holder, now, ttl) => unseen(() => webhooks.takeLease(st, name, holder, now, ttl)),
      release: (name, holder) => unseen(() => webhooks.releaseLease(st, name, holder)),
    },
    idempotency: {
      get: (userId, key, now) => read(() => getRecord(st, userId, key, now)),
      respond: (claim, response) => unseen(() => storeResponse(st, claim, response)),
      prune: (now) => unseen(() => pruneRecords(st, now)),
    },
    committedSeq: () => committed,
    applyFixtures: async (plan, now) => {
      // Foreign-key look-ups, two for each tree, closure and relation row, are about a tenth of an import, and
      // applyPlan checks what they would. The setting is the connection's and cannot change inside a
      // transaction; nothing else runs on the connection until it is back on.
      db.pragma('foreign_keys = OFF')
      let applied: Promise<Record<string, number>>
      try {
        applied = write((_record, at, appended) => {
          const { refs, lastSeq } = applyPlan(st, plan, now, at)
          appended(lastSeq)
          return refs
        })
      } finally {
        db.pragma('foreign_keys = ON')
      }
      const refs = await applied
      textMerge.start()
      return refs
    },
    onChange (listener) {
      listeners.add(listener)
      return () => { listeners.delete(listener) }
    },
    close: async () => {
      listeners.clear()
      await textMerge.stop()
      db.close()
    },
  }
}

/** The store's identity, made once and kept with the data. */
function storeIdentity (st: Statements): string {
  st.run("INSERT INTO meta (key, value) VALUES ('store_id', @id) ON CONFLICT (key) DO NOTHING", { id: randomUUID() })
  return present(st.one<{ value: string }>("SELECT value FROM meta WHERE key = 'store_id'"), 'the store_id row').value
}

/** An empty store gets the publication: object 1, an area, status on. */
function bootstrap (st: Statements, nickname: string, now: number): void {
  if (st.one('SELECT 1 FROM objects WHERE id = @id', { id: PUBLICATION_ID })) return
  if (st.one('SELECT 1 FROM objects LIMIT 1')) throw new Error('the store has objects but no publication (object 1)')
  st.db.transaction(() => {
    // the publication is there before anyone follows the store: no event
    const id = insertObject(st, {
      object_type: 'area', nickname, status: 'on', columns: { ...DEFAULT_COLUMNS, title: 'Publication' },
      read_groups: [], write_groups: [], user_id: 0, extras: {},
    }, now, () => {})
    if (id !== PUBLICATION_ID) throw new Error(`the publication got id ${id}, expected ${PUBLICATION_ID}`)
  })()
}
