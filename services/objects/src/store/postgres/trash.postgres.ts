import type { ObjectTypeName } from '../../core/object-types.js'
import type { TrashEntry, TrashedObject, TrashReads } from '../../core/ports.js'
import type { TrashedPlace } from '../../core/write-steps.js'
import type { ObjectDetails, ObjectRecord } from '../../core/types.js'
import type { Db } from './db.postgres.js'
import { loadDetails } from './details.postgres.js'
import { getObject } from './objects.postgres.js'
import { lockTree, registerNode } from './tree.postgres.js'
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
interface TrashRows { object: Row, own: Record<string, Row[]>, parents: TrashedPlace[], relations: Row[] }

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

/** Moves the object's rows into its trash entry: its edges and relations go with it, its nickname stays claimed. */
export async function moveToTrash (db: Db, id: number, userId: number, now: number): Promise<void> {
  await lockTree(db, false)
  const current = await getObject(db, { id }, true)
  if (current === null) return
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
  await deleteObject(db, id, false)
  await db.run(`INSERT INTO trash (id, object_type, nickname, read_groups, write_groups, file_key, deleted, user_id, view, rows)
    VALUES (@id, @object_type, @nickname, @read_groups, @write_groups, @file_key, @deleted, @user_id, @view, @rows)`, {
    id, object_type: current.object_type, nickname: current.nickname,
    read_groups: current.read_groups.length === 0 ? null : current.read_groups, write_groups: current.write_groups.length === 0 ? null : current.write_groups,
    file_key: current.file?.key ?? null, deleted: now, user_id: userId,
    view: JSON.stringify({ record: current, details }), rows: JSON.stringify(rows),
  })
}

export const inTrash = async (db: Db, id: number): Promise<boolean> => (await db.one('SELECT 1 FROM trash WHERE id = @id FOR UPDATE', { id })) !== undefined

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

/** Puts the object's rows back, and its relations whose other end exists; answers where it sat (null: not trashed). */
export async function takeFromTrash (db: Db, id: number): Promise<TrashedPlace[] | null> {
  await lockTree(db, false)
  const entry = await db.one<{ rows: string }>('DELETE FROM trash WHERE id = @id RETURNING rows', { id })
  if (entry === undefined) return null
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
  for (const r of rows.relations) {
    const other = (r.object_id === id ? r.related_id : r.object_id) as number
    if (other === id || await exists(db, other)) await insertRow(db, 'relations', r)
    else await keepWithTrashed(db, other, r)
  }
  return rows.parents
}

/** Removes the entry for good; its nickname is free again. */
export async function purgeTrashed (db: Db, id: number): Promise<void> {
  await db.run('DELETE FROM trash WHERE id = @id', { id })
  await db.run('DELETE FROM nicknames WHERE object_id = @id', { id })
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

export function trashReads (db: Db): TrashReads {
  return {
    list: async () => (await db.all<EntryRow>(`SELECT ${ENTRY} FROM trash ORDER BY deleted DESC, id DESC`)).map(toEntry),
    get: (ids) => trashedObjects(db, ids),
    expired: async (before, limit) => (await db.rawAll<[number]>('SELECT id FROM trash WHERE deleted < @before ORDER BY deleted LIMIT @limit', { before, limit })).map((r) => r[0]),
  }
}
