import { TAG_DATE } from './list-indexes.sqlite.js'
import { nicknameBase, uniqueNickname } from '../../core/nickname.js'
import type { ObjectExtras } from '../../core/object-input.js'
import { columnValues } from '../sql-columns.js'
import type { NewObject, ObjectChange } from '../../core/write-steps.js'
import { groupsColumn, type Statements } from './rows.sqlite.js'
import { registerNode, unplaceChild } from './tree.sqlite.js'

export const taken = (st: Statements) => (candidate: string) =>
  st.one('SELECT 1 FROM objects WHERE nickname = @n UNION ALL SELECT 1 FROM trash WHERE nickname = @n', { n: candidate }) !== undefined

/** Inserts an object (nickname generated when absent) and its extras. Call inside a transaction. */
export function insertObject (st: Statements, write: NewObject, now: number): number {
  const base = write.nickname ?? nicknameBase(write.columns.title)
  const placeholder = base === '' ? `~pending-${now}-${Math.random().toString(36).slice(2)}` : null
  const nickname = write.nickname ?? placeholder ?? uniqueNickname(base, base, taken(st))
  const values = {
    ...columnValues(write.columns), object_type: write.object_type, nickname, status: write.status,
    created: now, modified: now, user_created: write.user_id, user_modified: write.user_id,
    read_groups: groupsColumn(write.read_groups), write_groups: groupsColumn(write.write_groups),
  }
  const keys = Object.keys(values)
  const id = Number(st.run(`INSERT INTO objects (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`, values).lastInsertRowid)
  if (placeholder !== null) {
    const generated = uniqueNickname('', `${write.object_type}-${id}`, taken(st))
    st.run('UPDATE objects SET nickname = @n WHERE id = @id', { n: generated, id })
  }
  registerNode(st, id)
  writeExtras(st, id, write.extras)
  return id
}

/** Applies a change; false when the object does not exist. Call inside a transaction. */
export function updateObject (st: Statements, id: number, patch: ObjectChange, now: number): boolean {
  const values: Record<string, unknown> = { ...columnValues(patch.columns), modified: now, user_modified: patch.user_id }
  if (patch.nickname !== undefined) values.nickname = patch.nickname
  if (patch.status !== undefined) values.status = patch.status
  const sets = Object.keys(values).map((k) => `${k} = @${k}`).join(', ')
  const changed = st.run(`UPDATE objects SET ${sets} WHERE id = @id`, { ...values, id }).changes > 0
  if (changed) writeExtras(st, id, patch.extras)
  return changed
}

export const objectExists = (st: Statements, id: number): boolean => st.one('SELECT 1 FROM objects WHERE id = @id', { id }) !== undefined

/** Removes an object with its tree edges (keeping the closure exact) and, by cascade, everything else. */
export function deleteObject (st: Statements, id: number): boolean {
  const edges = st.all<{ parent_id: number, object_id: number }>(
    'SELECT parent_id, object_id FROM tree WHERE object_id = @id OR parent_id = @id', { id })
  for (const e of edges) unplaceChild(st, e.parent_id, e.object_id)
  return st.run('DELETE FROM objects WHERE id = @id', { id }).changes > 0
}

/** Replaces each part of the extras that is present. */
function writeExtras (st: Statements, id: number, extras: ObjectExtras): void {
  if (extras.languages) {
    st.run('DELETE FROM translations WHERE object_id = @id', { id })
    for (const [lang, fields] of Object.entries(extras.languages)) {
      for (const [field, value] of Object.entries(fields)) st.run('INSERT INTO translations VALUES (@id, @lang, @field, @value)', { id, lang, field, value })
    }
  }
  if (extras.custom_properties) {
    st.run('DELETE FROM custom_properties WHERE object_id = @id', { id })
    for (const [name, value] of Object.entries(extras.custom_properties)) st.run('INSERT INTO custom_properties VALUES (@id, @name, @value)', { id, name, value })
  }
  if (extras.geo_tags) {
    st.run('DELETE FROM geo_tags WHERE object_id = @id', { id })
    for (const g of extras.geo_tags) {
      st.run(`INSERT INTO geo_tags (object_id, latitude, longitude, address, title, gmaps_lookats)
        VALUES (@id, @latitude, @longitude, @address, @title, @gmaps)`, { id, ...g, gmaps: g.gmaps_lookats === null ? null : JSON.stringify(g.gmaps_lookats) })
    }
  }
  if (extras.date_items) {
    st.run('DELETE FROM date_items WHERE object_id = @id', { id })
    for (const d of extras.date_items) {
      st.run('INSERT INTO date_items (object_id, start_date, end_date, days) VALUES (@id, @s, @e, @days)', { id, s: d.start_date, e: d.end_date, days: JSON.stringify(d.days) })
    }
  }
  writeVocabularies(st, id, extras)
}

function writeVocabularies (st: Statements, id: number, extras: ObjectExtras): void {
  if (extras.tags) {
    st.run('DELETE FROM object_tags WHERE object_id = @id', { id })
    for (const name of new Set(extras.tags)) {
      st.run('INSERT INTO tags (name, label) VALUES (@name, @name) ON CONFLICT (name) DO NOTHING', { name })
      st.run(`INSERT OR IGNORE INTO object_tags (object_id, tag_id, publication_date) SELECT @id, id, ${TAG_DATE} FROM tags WHERE name = @name`, { id, name })
    }
  }
  if (extras.categories) {
    st.run('DELETE FROM object_categories WHERE object_id = @id', { id })
    for (const name of new Set(extras.categories)) {
      const linked = st.run('INSERT OR IGNORE INTO object_categories SELECT @id, id FROM categories WHERE name = @name', { id, name }).changes
      if (linked === 0) throw new Error(`unknown category "${name}"`)
    }
  }
}

export function upsertVocabulary (st: Statements, table: 'tags' | 'categories', item: { name: string, label: string }): void {
  st.run(`INSERT INTO ${table} (name, label) VALUES (@name, @label) ON CONFLICT (name) DO UPDATE SET label = excluded.label`, item)
}
