import type Database from 'better-sqlite3'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { TrashEntry, TrashedObject, TrashReads } from '../../core/ports.js'
import type { ObjectDetails, ObjectRecord } from '../../core/types.js'
import type { TrashedPlace } from '../../core/write-steps.js'
import { loadDetails } from './details.sqlite.js'
import { getObject } from './objects.sqlite.js'
import { idsJson, type Statements } from './rows.sqlite.js'
import { answer } from './transactions.sqlite.js'
import { registerNode } from './tree.sqlite.js'
import { deleteObject, objectExists } from './writes.sqlite.js'

/**
 * The trash (decisions §16): a trashed object's rows leave the live tables, so no read, list, count or
 * relation query changes (nor costs more); its entry keeps them to put back. `nickname` stays unique here
 * and is checked beside the objects' (nicknamesTaken, generated nicknames); `file_key` keeps its file in use.
 */
const TRASH_SCHEMA = `
CREATE TABLE IF NOT EXISTS trash (
  id INTEGER PRIMARY KEY,
  object_type TEXT NOT NULL,
  nickname TEXT NOT NULL UNIQUE,
  read_groups TEXT, write_groups TEXT,
  file_key TEXT,
  deleted INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  view TEXT NOT NULL,  -- JSON {record, details}: what the trash list shows
  rows TEXT NOT NULL   -- JSON: the object's own rows by table, its parents and both directions of its relations
);
CREATE INDEX IF NOT EXISTS trash_deleted ON trash(deleted);
CREATE INDEX IF NOT EXISTS trash_file_key ON trash(file_key) WHERE file_key IS NOT NULL;
`

export function ensureTrash (db: Database.Database): void {
  db.exec(TRASH_SCHEMA)
}

/** The tables holding an object's own rows (besides `objects`), and what else a row needs to exist. */
const OWN_TABLES: { table: string, needs?: { column: string, table: string } }[] = [
  { table: 'translations' }, { table: 'custom_properties' }, { table: 'geo_tags' }, { table: 'date_items' },
  { table: 'object_tags', needs: { column: 'tag_id', table: 'tags' } },
  { table: 'object_categories', needs: { column: 'category_id', table: 'categories' } },
]

type Row = Record<string, unknown>

interface TrashRows {
  object: Row
  own: Record<string, Row[]>
  parents: { parent_id: number, priority: number }[]
  relations: Row[]
}

const ENTRY = 'id, object_type, read_groups, write_groups, deleted, user_id'
interface EntryRow { id: number, object_type: string, read_groups: string | null, write_groups: string | null, deleted: number, user_id: number }

const groups = (column: string | null): string[] => (column === null ? [] : JSON.parse(column) as string[])
const toEntry = (r: EntryRow): TrashEntry => ({
  id: r.id, object_type: r.object_type as ObjectTypeName, read_groups: groups(r.read_groups), write_groups: groups(r.write_groups),
  deleted: r.deleted, user_id: r.user_id,
})

function insertRow (st: Statements, table: string, row: Row): void {
  const keys = Object.keys(row)
  st.run(`INSERT INTO ${table} (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`, row)
}

/** Moves the object's rows into its trash entry. Call inside a transaction. */
export function moveToTrash (st: Statements, id: number, userId: number, now: number): void {
  const current = getObject(st, { id })
  if (current === null) return
  const rows: TrashRows = {
    object: st.one<Row>('SELECT * FROM objects WHERE id = @id', { id }) ?? {},
    own: Object.fromEntries(OWN_TABLES.map(({ table }) => [table, st.all<Row>(`SELECT * FROM ${table} WHERE object_id = @id`, { id })])),
    parents: st.all('SELECT parent_id, priority FROM tree WHERE object_id = @id ORDER BY seq', { id }),
    relations: st.all<Row>('SELECT * FROM relations WHERE object_id = @id OR related_id = @id', { id }),
  }
  const details = loadDetails(st, [id]).get(id)
  deleteObject(st, id)
  st.run(`INSERT INTO trash (id, object_type, nickname, read_groups, write_groups, file_key, deleted, user_id, view, rows)
    VALUES (@id, @object_type, @nickname, @read_groups, @write_groups, @file_key, @deleted, @user_id, @view, @rows)`, {
    id, object_type: current.object_type, nickname: current.nickname,
    read_groups: rows.object.read_groups ?? null, write_groups: rows.object.write_groups ?? null,
    file_key: current.file?.key ?? null, deleted: now, user_id: userId,
    view: JSON.stringify({ record: current, details }), rows: JSON.stringify(rows),
  })
}

export const inTrash = (st: Statements, id: number): boolean => st.one('SELECT 1 FROM trash WHERE id = @id', { id }) !== undefined

/** A relation whose other end is in the trash too goes into that entry: restoring it later brings the relation back. */
function keepWithTrashed (st: Statements, other: number, relation: Row): void {
  const entry = st.one<{ rows: string }>('SELECT rows FROM trash WHERE id = @id', { id: other })
  if (entry === undefined) return // purged: the relation goes with it
  const rows = JSON.parse(entry.rows) as TrashRows
  const row = JSON.stringify(relation)
  if (rows.relations.some((r) => JSON.stringify(r) === row)) return
  rows.relations.push(relation)
  st.run('UPDATE trash SET rows = @rows WHERE id = @id', { id: other, rows: JSON.stringify(rows) })
}

/**
 * Puts the object's rows back, and its relations whose other end exists; answers where it sat (null: not
 * in the trash). Call inside a transaction.
 */
export function takeFromTrash (st: Statements, id: number): TrashedPlace[] | null {
  const entry = st.one<{ rows: string }>('SELECT rows FROM trash WHERE id = @id', { id })
  if (entry === undefined) return null
  const rows = JSON.parse(entry.rows) as TrashRows
  st.run('DELETE FROM trash WHERE id = @id', { id })
  insertRow(st, 'objects', rows.object)
  registerNode(st, id)
  for (const { table, needs } of OWN_TABLES) {
    for (const row of rows.own[table] ?? []) {
      // a tag or category removed meanwhile is not linked again
      if (needs !== undefined && st.one(`SELECT 1 FROM ${needs.table} WHERE id = @id`, { id: row[needs.column] }) === undefined) continue
      insertRow(st, table, row)
    }
  }
  for (const r of rows.relations) {
    const other = (r.object_id === id ? r.related_id : r.object_id) as number
    if (other === id || objectExists(st, other)) insertRow(st, 'relations', r)
    else keepWithTrashed(st, other, r)
  }
  return rows.parents
}

function trashedObjects (st: Statements, ids: number[]): TrashedObject[] {
  if (ids.length === 0) return []
  return st.all<EntryRow & { view: string, rows: string }>(`SELECT ${ENTRY}, view, rows FROM trash WHERE id IN (SELECT value FROM json_each(@ids))`, { ids: idsJson(ids) })
    .map((r) => {
      const view = JSON.parse(r.view) as { record: ObjectRecord, details: ObjectDetails }
      const rows = JSON.parse(r.rows) as TrashRows
      return { ...toEntry(r), record: view.record, details: view.details, parent_ids: rows.parents.map((p) => p.parent_id) }
    })
}

export function trashPort (st: Statements): TrashReads {
  return {
    list: () => answer(() => st.all<EntryRow>(`SELECT ${ENTRY} FROM trash ORDER BY deleted DESC, id DESC`).map(toEntry)),
    get: (ids) => answer(() => trashedObjects(st, ids)),
    expired: (before, limit) => answer(() => st.all<{ id: number }>('SELECT id FROM trash WHERE deleted < @before ORDER BY deleted LIMIT @limit', { before, limit }).map((r) => r.id)),
  }
}

export function purgeTrashed (st: Statements, id: number): void {
  st.run('DELETE FROM trash WHERE id = @id', { id })
}
