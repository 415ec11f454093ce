import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { traceStatements } from '@content/platform'
import Database from 'better-sqlite3'
import { DEFAULT_COLUMNS } from '../../core/object-input.js'
import { PUBLICATION_ID, UniqueConflict, type ObjectsStore, type StoreOptions } from '../objects.store.js'
import { applyPlan } from './fixtures.sqlite.js'
import * as objects from './objects.sqlite.js'
import * as relations from './relations.sqlite.js'
import { Statements } from './rows.sqlite.js'
import { SCHEMA, applyPragmas, registerFunctions } from './schema.sqlite.js'
import * as tree from './tree.sqlite.js'
import * as uploads from './uploads.sqlite.js'
import { deleteObject, insertObject, updateObject } from './writes.sqlite.js'

/** Opens (creating when needed) the SQLite store in `file` and bootstraps the publication. */
export function openSqliteStore (file: string, options: StoreOptions): ObjectsStore {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
  const db = traceStatements(new Database(file))
  applyPragmas(db)
  registerFunctions(db)
  db.exec(SCHEMA)
  const st = new Statements(db)
  const clock = options.now ?? Date.now
  bootstrap(st, options.publicationNickname, clock())
  const listeners = new Set<() => void>()
  const notify = () => { for (const l of listeners) l() }
  /** Runs `fn` in one transaction and tells listeners after it commits. */
  const write = <T>(fn: () => T): Promise<T> => {
    let result: T
    try {
      result = db.transaction(fn)()
    } catch (err) {
      return Promise.reject((err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE' ? new UniqueConflict() : err)
    }
    notify()
    return Promise.resolve(result)
  }
  const read = <T>(fn: () => T): Promise<T> => {
    try {
      return Promise.resolve(fn())
    } catch (err) {
      return Promise.reject(err)
    }
  }
  /** A transaction no read would show (pending uploads): listeners are not told. */
  const unseen = <T>(fn: () => T): Promise<T> => read(() => db.transaction(fn)())

  return {
    kind: 'sqlite',
    storeId: randomUUID(),
    objects: {
      get: (ref) => read(() => objects.getObject(st, ref)),
      listByIds: (ids) => read(() => objects.listObjectsByIds(st, ids)),
      details: (ids) => read(() => objects.loadDetails(st, ids)),
      typesOf: (ids) => read(() => objects.typesOf(st, ids)),
      nicknamesTaken: (names) => read(() => objects.nicknamesTaken(st, names)),
      windowDates: (now) => read(() => objects.windowDates(st, now)),
      setPermissions: (id, r, w) => write(() => objects.setPermissions(st, id, r, w)),
      create: (input, now) => write(() => {
        const id = insertObject(st, input, now)
        uploads.claimUpload(st, input.claim)
        return id
      }),
      // an object that is gone is not updated, and its claim is left unused
      update: (id, patch, now) => write(() => {
        const updated = updateObject(st, id, patch, now)
        if (updated) uploads.claimUpload(st, patch.claim)
        return updated
      }),
      remove: (id) => write(() => (deleteObject(st, id) ? 'removed' : 'absent')),
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
      addChildren: (p, items) => write(() => items.map((i) => tree.placeChild(st, p, i.child_id, i.priority))),
      setPriority: (p, c, priority) => write(() => {
        if (tree.positionOf(st, p, c) === null) return false
        tree.placeChild(st, p, c, priority)
        return true
      }),
      removeChild: (p, c) => write(() => (tree.unplaceChild(st, p, c) ? 'removed' : 'absent')),
    },
    relations: {
      list: (id, name, q) => read(() => relations.listRelated(st, id, name, q)),
      get: (id, name, rel) => read(() => relations.getRelation(st, id, name, rel)),
      counts: (ids, vis) => read(() => relations.relationCounts(st, ids, vis)),
      neighbours: (id) => read(() => relations.neighbours(st, id)),
      save: (id, name, inverse, items) => write(() => items.map((i) => relations.saveRelation(st, id, name, inverse, i))),
      replace: (id, name, inverse, item) => write(() => relations.replaceRelation(st, id, name, inverse, item)),
      remove: (id, name, inverse, rel) => write(() => (relations.removeRelation(st, id, name, inverse, rel) ? 'removed' : 'absent')),
    },
    vocabulary: {
      existingCategories: (names) => read(() => objects.existingCategories(st, names)),
    },
    uploads: {
      add: (upload, now) => unseen(() => uploads.addUpload(st, upload, now)),
      get: (hash, now) => read(() => uploads.getUpload(st, hash, now)),
      filesInUse: (keys, now) => read(() => uploads.filesInUse(st, keys, now)),
    },
    applyFixtures: (plan, now) => write(() => applyPlan(st, plan, now)),
    onChange (listener) {
      listeners.add(listener)
      return () => { listeners.delete(listener) }
    },
    close: () => {
      listeners.clear()
      db.close()
      return Promise.resolve()
    },
  }
}

/** An empty store gets the publication: object 1, an area, status on. */
function bootstrap (st: Statements, nickname: string, now: number): void {
  if (st.one('SELECT 1 FROM objects WHERE id = @id', { id: PUBLICATION_ID })) return
  if (st.one('SELECT 1 FROM objects LIMIT 1')) throw new Error('the store has objects but no publication (object 1)')
  st.db.transaction(() => {
    const id = insertObject(st, {
      object_type: 'area', nickname, status: 'on', columns: { ...DEFAULT_COLUMNS, title: 'Publication' },
      read_groups: [], write_groups: [], user_id: 0, extras: {},
    }, now)
    if (id !== PUBLICATION_ID) throw new Error(`the publication got id ${id}, expected ${PUBLICATION_ID}`)
  })()
}
