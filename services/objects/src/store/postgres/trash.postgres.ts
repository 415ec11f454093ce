import type { ObjectTypeName } from '../../core/object-types.js'
import type { TrashEntry, TrashedObject, TrashPort } from '../../core/ports.js'
import type { ObjectDetails, ObjectRecord } from '../../core/types.js'
import { objectDeleted, objectRestored, objectTrashed } from '../../core/write-events.js'
import type { Db } from './db.postgres.js'
import { loadDetails } from './details.postgres.js'
import { getObject } from './objects.postgres.js'
import { dropRevisions } from './revisions.postgres.js'
import type { Transactions, Tx } from './transactions.postgres.js'
import { lockTree, placeChild, registerNode } from './tree.postgres.js'
import { deleteObject } from './writes.postgres.js'

/**
 * The trash (decisions §16), as trash.sqlite.ts keeps it: a trashed object's rows leave the live tables
 * and wait in its entry (JSON), its nickname stays claimed in `nicknames`, its file key keeps its file.
 */
const OWN_TABLES: { table: string, needs?: { column: string, table: string } }[] = [
  { table: 'translations' }, { table: 'custom_properties' }, { table: 'geo_tags' }, { table: 'date_items' },
  { table: 'object_tags', needs: { column: 'tag_id', table: 'tags' } },
  { table: 'object_categories', needs: { column: 'category_id', table: 'categories' } },
]

type Row = Record<string, unknown>
interface TrashRows { object: Row, own: Record<string, Row[]>, parents: { parent_id: number, priority: number }[], relations: Row[] }

const ENTRY = 'id, object_type, read_groups, write_groups, deleted, user_id'
interface EntryRow { id: number, object_type: string, read_groups: string[] | null, write_groups: string[] | null, deleted: number, user_id: number }
const toEntry = (r: EntryRow): TrashEntry => ({
  id: r.id, object_type: r.object_type as ObjectTypeName, read_groups: r.read_groups ?? [], write_groups: r.write_groups ?? [], deleted: r.deleted, user_id: r.user_id,
})

/** A row as kept (to_jsonb of the row, generated columns left out), put back with each column in its type. */
async function insertRow (db: Db, table: string, row: Row): Promise<void> {
  const columns = Object.keys(row).join(', ')
  await db.run(`INSERT INTO ${table} (${columns}) SELECT ${columns} FROM jsonb_populate_record(NULL::${table}, @row::jsonb)`, { row: JSON.stringify(row) })
}

async function trashObject (tx: Tx, id: number, userId: number, now: number): Promise<boolean> {
  const { db } = tx
  await lockTree(db, false)
  const current = await getObject(db, { id }, true)
  if (current === null) return false
  const object = await db.one<{ row: Row }>('SELECT to_jsonb(o) - \'file_key\' AS row FROM objects o WHERE id = @id', { id })
  const own: Record<string, Row[]> = {}
  for (const { table } of OWN_TABLES) own[table] = (await db.all<{ row: Row }>(`SELECT to_jsonb(t) AS row FROM ${table} t WHERE object_id = @id`, { id })).map((r) => r.row)
  const rows: TrashRows = {
    object: object?.row ?? {},
    own,
    parents: await db.all('SELECT parent_id, priority FROM tree WHERE object_id = @id ORDER BY seq', { id }),
    relations: (await db.all<{ row: Row }>('SELECT to_jsonb(r) AS row FROM relations r WHERE object_id = @id OR related_id = @id', { id })).map((r) => r.row),
  }
  const details = (await loadDetails(db, [id])).get(id)
  // recorded while its parents and related objects are still linked: their reads hear of it
  await tx.record(objectTrashed(id))
  await deleteObject(tx, id, false, false)
  await db.run(`INSERT INTO trash (id, object_type, nickname, read_groups, write_groups, file_key, deleted, user_id, view, rows)
    VALUES (@id, @object_type, @nickname, @read_groups, @write_groups, @file_key, @deleted, @user_id, @view, @rows)`, {
    id, object_type: current.object_type, nickname: current.nickname,
    read_groups: current.read_groups.length === 0 ? null : current.read_groups, write_groups: current.write_groups.length === 0 ? null : current.write_groups,
    file_key: current.file?.key ?? null, deleted: now, user_id: userId,
    view: JSON.stringify({ record: current, details }), rows: JSON.stringify(rows),
  })
  return true
}

const exists = async (db: Db, id: number) => (await db.one('SELECT 1 FROM objects WHERE id = @id', { id })) !== undefined

/** A relation whose other end is in the trash too goes into that entry: restoring it later brings the relation back. */
async function keepWithTrashed (db: Db, other: number, relation: Row): Promise<void> {
  const entry = await db.one<{ rows: string }>('SELECT rows FROM trash WHERE id = @id FOR UPDATE', { id: other })
  if (entry === undefined) return
  const rows = JSON.parse(entry.rows) as TrashRows
  const row = JSON.stringify(relation)
  if (rows.relations.some((r) => JSON.stringify(r) === row)) return
  rows.relations.push(relation)
  await db.run('UPDATE trash SET rows = @rows WHERE id = @id', { id: other, rows: JSON.stringify(rows) })
}

async function restoreObject (tx: Tx, id: number, parents: number[] | null): Promise<boolean> {
  const { db } = tx
  await lockTree(db, false)
  const entry = await db.one<{ rows: string }>('DELETE FROM trash WHERE id = @id RETURNING rows', { id })
  if (entry === undefined) return false
  const rows = JSON.parse(entry.rows) as TrashRows
  await insertRow(db, 'objects', rows.object)
  await registerNode(db, id)
  for (const { table, needs } of OWN_TABLES) {
    for (const row of rows.own[table] ?? []) {
      // a tag or category removed meanwhile is not linked again
      if (needs !== undefined && (await db.one(`SELECT 1 FROM ${needs.table} WHERE id = @id`, { id: row[needs.column] as number })) === undefined) continue
      await insertRow(db, table, row)
    }
  }
  const places = parents === null ? rows.parents : parents.map((p) => ({ parent_id: p, priority: null }))
  for (const p of places) if (await exists(db, p.parent_id)) await placeChild(db, p.parent_id, id, p.priority)
  for (const r of rows.relations) {
    const other = (r.object_id === id ? r.related_id : r.object_id) as number
    if (other === id || await exists(db, other)) await insertRow(db, 'relations', r)
    else await keepWithTrashed(db, other, r)
  }
  await tx.record(objectRestored(id))
  return true
}

async function trashedObjects (db: Db, ids: number[]): Promise<TrashedObject[]> {
  if (ids.length === 0) return []
  return (await db.all<EntryRow & { view: string, rows: string }>(`SELECT ${ENTRY}, view, rows FROM trash WHERE id = ANY(@ids::bigint[])`, { ids }))
    .map((r) => {
      const view = JSON.parse(r.view) as { record: ObjectRecord, details: ObjectDetails }
      const rows = JSON.parse(r.rows) as TrashRows
      return { ...toEntry(r), record: view.record, details: view.details, parent_ids: rows.parents.map((p) => p.parent_id) }
    })
}

export function trashPort (db: Db, tx: Transactions): TrashPort {
  return {
    put: (id, userId, now) => tx.write(async (t) => (await trashObject(t, id, userId, now) ? 'trashed' : 'absent')),
    list: async () => (await db.all<EntryRow>(`SELECT ${ENTRY} FROM trash ORDER BY deleted DESC, id DESC`)).map(toEntry),
    get: (ids) => trashedObjects(db, ids),
    restore: (id, parents) => tx.write(async (t) => (await restoreObject(t, id, parents) ? 'restored' : 'absent')),
    // recorded before the entry goes: the event's object type is read from it
    purge: (id) => tx.write(async (t) => {
      if ((await t.db.one('SELECT 1 FROM trash WHERE id = @id FOR UPDATE', { id })) === undefined) return 'absent'
      await t.record(objectDeleted(id))
      await t.db.run('DELETE FROM trash WHERE id = @id', { id })
      await t.db.run('DELETE FROM nicknames WHERE object_id = @id', { id })
      await dropRevisions(t.db, id)
      return 'purged'
    }),
    expired: async (before, limit) => (await db.rawAll<[number]>('SELECT id FROM trash WHERE deleted < @before ORDER BY deleted LIMIT @limit', { before, limit })).map((r) => r[0]),
  }
}
