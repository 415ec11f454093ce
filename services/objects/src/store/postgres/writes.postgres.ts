import { NICKNAME_MAX, nicknameBase } from '../../core/nickname.js'
import type { ObjectExtras } from '../../core/object-input.js'
import { columnValues } from '../sql-columns.js'
import type { NewObject, ObjectChange } from '../../core/write-steps.js'
import { UniqueConflict } from '../../core/conflicts.js'
import type { Db } from './db.postgres.js'
import { groupsColumn } from './rows.postgres.js'
import type { PgWrite } from './transactions.postgres.js'
import { TREE_LOCK_SHARED, unplaceChild } from './tree.postgres.js'
import { RECORD_RETURNING, toRecord } from './record-row.postgres.js'
import type { ObjectRecord } from '../../core/types.js'

/** Takes `nickname` for object `id` in `nicknames` (live and trashed objects alike); false when another has it. */
export async function claimNickname (db: Db, nickname: string, id: number): Promise<boolean> {
  return await db.run('INSERT INTO nicknames (nickname, object_id) VALUES (@n, @id) ON CONFLICT (nickname) DO NOTHING', { n: nickname, id }) > 0
}

/**
 * The first free candidate of nickname.ts `uniqueNickname` for the root `r.root` (`root`, `root-1`,
 * `root-2`, …, the root cut to leave room for the suffix), found by the server: the candidates are
 * generated lazily (a set-returning function in the select list) and the first without a row in
 * `nicknames` ends it.
 */
const FIRST_FREE = `(SELECT c FROM (
    SELECT 0 AS n, r.root AS c
    UNION ALL
    SELECT n, (CASE WHEN length(r.root) <= ${NICKNAME_MAX} - length('-' || n) THEN r.root
      ELSE rtrim(left(r.root, ${NICKNAME_MAX} - length('-' || n)), '-') END) || '-' || n
    FROM (SELECT generate_series(1, 2147483647) AS n) s
  ) x WHERE NOT EXISTS (SELECT 1 FROM nicknames WHERE nickname = x.c) LIMIT 1)`

/**
 * The statement that inserts an object: its id from the sequence, its nickname claimed in `nicknames`
 * (the claim is the check, so two writers on two processes never take one; a generated one is the first
 * free candidate, the root `<type>-<id>` for an empty base), its row and its closure row, answering the
 * row as a record; none when the nickname was taken meanwhile. It first takes the tree's lock shared
 * (tree.postgres.ts) for the placements that may follow: the statements after it see every move committed.
 */
function insertSql (keys: string[], generated: boolean): string {
  const nickname = generated
    ? `SELECT ${FIRST_FREE}, f.id FROM fresh f, LATERAL (SELECT CASE WHEN @base = '' THEN @object_type || '-' || f.id ELSE @base END AS root) r`
    : 'SELECT @nickname, f.id FROM fresh f'
  return `WITH locked AS (SELECT ${TREE_LOCK_SHARED} AS l),
    fresh AS (SELECT nextval('objects_id_seq') AS id FROM locked),
    named AS (INSERT INTO nicknames (nickname, object_id) ${nickname} ON CONFLICT (nickname) DO NOTHING RETURNING nickname, object_id),
    added AS (INSERT INTO objects (id, nickname, ${keys.join(', ')}) SELECT object_id, nickname, ${keys.map((k) => `@${k}`).join(', ')} FROM named
      RETURNING ${RECORD_RETURNING}),
    self AS (INSERT INTO closure (ancestor_id, descendant_id, paths) SELECT id, id, 1 FROM added)
    SELECT * FROM added`
}

/** Inserts an object (nickname generated when absent) and its extras; answers its row. */
export async function insertObject (tx: PgWrite, object: NewObject, now: number): Promise<ObjectRecord> {
  const { db } = tx
  const values: Record<string, unknown> = {
    ...columnValues(object.columns), object_type: object.object_type, status: object.status,
    created: now, modified: now, user_created: object.user_id, user_modified: object.user_id,
    read_groups: groupsColumn(object.read_groups), write_groups: groupsColumn(object.write_groups),
  }
  const keys = Object.keys(values)
  const generated = object.nickname === null
  const sql = insertSql(keys, generated)
  const params = generated ? { ...values, base: nicknameBase(object.columns.title) } : { ...values, nickname: object.nickname }
  let row = await db.rawOne(sql, params)
  // a generated nickname another writer claimed between the look and the claim: the next free one
  while (row === undefined && generated) row = await db.rawOne(sql, params)
  if (row === undefined) throw new UniqueConflict()
  const record = toRecord(row)
  tx.created(record.id, object.object_type)
  await writeExtras(db, record.id, object.extras)
  return record
}

/** Applies a change; false when the object does not exist. A new nickname is claimed, the old one let go. */
export async function updateObject (db: Db, id: number, change: ObjectChange, now: number): Promise<boolean> {
  const values: Record<string, unknown> = { ...columnValues(change.columns), modified: now, user_modified: change.user_id }
  if (change.nickname !== undefined) values.nickname = change.nickname
  if (change.status !== undefined) values.status = change.status
  if (change.nickname !== undefined) {
    const current = await db.one<{ nickname: string }>('SELECT nickname FROM objects WHERE id = @id', { id })
    if (current === undefined) return false
    if (current.nickname !== change.nickname) {
      if (!(await claimNickname(db, change.nickname, id))) throw new UniqueConflict()
      await db.run('DELETE FROM nicknames WHERE nickname = @n AND object_id = @id', { n: current.nickname, id })
    }
  }
  const sets = Object.keys(values).map((k) => `${k} = @${k}`).join(', ')
  const changed = await db.run(`UPDATE objects SET ${sets} WHERE id = @id`, { ...values, id }) > 0
  if (changed) await writeExtras(db, id, change.extras)
  return changed
}

/**
 * Removes an object with its tree edges (keeping the closure exact) and, by cascade, everything else;
 * `forGood`: its nickname is free again (a trashed object keeps it).
 */
export async function deleteObject (db: Db, id: number, forGood: boolean): Promise<boolean> {
  if (await db.one('SELECT 1 FROM objects WHERE id = @id FOR UPDATE', { id }) === undefined) return false
  const edges = await db.all<{ parent_id: number, object_id: number }>('SELECT parent_id, object_id FROM tree WHERE object_id = @id OR parent_id = @id', { id })
  for (const e of edges) await unplaceChild(db, e.parent_id, e.object_id)
  if (forGood) await db.run('DELETE FROM nicknames WHERE object_id = @id', { id })
  return await db.run('DELETE FROM objects WHERE id = @id', { id }) > 0
}

/** Replaces each part of the extras that is present, a statement per part. */
export async function writeExtras (db: Db, id: number, extras: ObjectExtras): Promise<void> {
  if (extras.languages) {
    const rows = Object.entries(extras.languages).flatMap(([lang, fields]) => Object.entries(fields).map(([field, value]) => [lang, field, value]))
    await db.run('DELETE FROM translations WHERE object_id = @id', { id })
    if (rows.length > 0) {
      await db.run('INSERT INTO translations (object_id, lang, field, value) SELECT @id, * FROM unnest(@lang::text[], @field::text[], @value::text[])',
        { id, lang: rows.map((r) => r[0]), field: rows.map((r) => r[1]), value: rows.map((r) => r[2]) })
    }
  }
  if (extras.custom_properties) {
    const entries = Object.entries(extras.custom_properties)
    await db.run('DELETE FROM custom_properties WHERE object_id = @id', { id })
    if (entries.length > 0) {
      await db.run('INSERT INTO custom_properties (object_id, name, value) SELECT @id, * FROM unnest(@name::text[], @value::text[])',
        { id, name: entries.map((e) => e[0]), value: entries.map((e) => e[1]) })
    }
  }
  if (extras.geo_tags) {
    await db.run('DELETE FROM geo_tags WHERE object_id = @id', { id })
    for (const g of extras.geo_tags) {
      await db.run(`INSERT INTO geo_tags (object_id, latitude, longitude, address, title, gmaps_lookats) VALUES (@id, @latitude, @longitude, @address, @title, @gmaps)`,
        { id, latitude: g.latitude, longitude: g.longitude, address: g.address, title: g.title, gmaps: g.gmaps_lookats === null ? null : JSON.stringify(g.gmaps_lookats) })
    }
  }
  if (extras.date_items) {
    await db.run('DELETE FROM date_items WHERE object_id = @id', { id })
    for (const d of extras.date_items) {
      await db.run('INSERT INTO date_items (object_id, start_date, end_date, days) VALUES (@id, @s, @e, @days)', { id, s: d.start_date, e: d.end_date, days: JSON.stringify(d.days) })
    }
  }
  if (extras.tags) {
    await db.run('DELETE FROM object_tags WHERE object_id = @id', { id })
    const names = [...new Set(extras.tags)].sort()
    if (names.length > 0) {
      await db.run('INSERT INTO tags (name, label) SELECT n, n FROM unnest(@names::text[]) n ON CONFLICT (name) DO NOTHING', { names })
      await db.run(`INSERT INTO object_tags (object_id, tag_id, publication_date)
        SELECT @id, t.id, (SELECT publication_date FROM objects WHERE id = @id) FROM tags t WHERE t.name = ANY(@names::text[]) ON CONFLICT DO NOTHING`, { id, names })
    }
  }
  if (extras.categories) {
    await db.run('DELETE FROM object_categories WHERE object_id = @id', { id })
    const names = [...new Set(extras.categories)]
    if (names.length > 0) {
      const linked = await db.run('INSERT INTO object_categories (object_id, category_id) SELECT @id, c.id FROM categories c WHERE c.name = ANY(@names::text[])', { id, names })
      if (linked !== names.length) throw new Error('unknown category')
    }
  }
}

export async function upsertVocabulary (db: Db, table: 'tags' | 'categories', item: { name: string, label: string }): Promise<void> {
  await db.run(`INSERT INTO ${table} (name, label) VALUES (@name, @label) ON CONFLICT (name) DO UPDATE SET label = excluded.label`, item)
}
