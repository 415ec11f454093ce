import { TAG_DATE } from './list-indexes.sqlite.js'
import { nicknameBase, uniqueNickname } from '../../core/nickname.js'
import type { ObjectExtras } from '../../core/object-input.js'
import type { NewObject } from '../../core/write-steps.js'
import { nicknamesTaken } from './objects.sqlite.js'
import { groupsColumn, type Statements } from './rows.sqlite.js'
import { COLUMNS, columnValues } from '../sql-columns.js'
import { taken } from './writes.sqlite.js'

// positional: binding 26 values by name costs more than the insert of a small row
const INSERT = `INSERT INTO objects (${COLUMNS.join(', ')}, object_type, nickname, status, created, modified,
  user_created, user_modified, read_groups, write_groups) VALUES (${Array(COLUMNS.length + 9).fill('?').join(', ')})`

/** Tag and category ids by name, each read (a tag created) the first time a plan names it. */
export class Vocabulary {
  private readonly tags = new Map<string, number>()
  private readonly categories = new Map<string, number>()
  constructor (private readonly st: Statements) {}

  tag (name: string): number {
    let id = this.tags.get(name)
    if (id === undefined) {
      this.st.run('INSERT INTO tags (name, label) VALUES (@name, @name) ON CONFLICT (name) DO NOTHING', { name })
      id = this.st.one<{ id: number }>('SELECT id FROM tags WHERE name = @name', { name })?.id
      if (id === undefined) throw new Error(`tag "${name}" was not saved`)
      this.tags.set(name, id)
    }
    return id
  }

  category (name: string): number {
    let id = this.categories.get(name)
    if (id === undefined) {
      id = this.st.one<{ id: number }>('SELECT id FROM categories WHERE name = @name', { name })?.id
      if (id === undefined) throw new Error(`unknown category "${name}"`)
      this.categories.set(name, id)
    }
    return id
  }
}

/**
 * Whether a nickname is taken, for the plan's generated nicknames: the first candidate of each (the base of
 * its title) is answered from one look-up of them all and the nicknames the plan wrote since; any other
 * candidate is asked of the store.
 */
export class Nicknames {
  private readonly checked: Set<string>
  private readonly taken: Set<string>
  constructor (private readonly st: Statements, writes: NewObject[]) {
    this.checked = new Set(writes.flatMap((w) => (w.nickname === null ? [nicknameBase(w.columns.title)] : [])))
    this.taken = new Set(nicknamesTaken(st, [...this.checked]))
  }

  isTaken (candidate: string): boolean {
    return this.checked.has(candidate) ? this.taken.has(candidate) : taken(this.st)(candidate)
  }

  written (nickname: string): void { this.taken.add(nickname) }
}

/**
 * `insertObject` for an object of a fixtures plan: the same row, nickname and extras, without clearing
 * extras a new object cannot have; the caller records the event. Call inside a transaction.
 */
export function insertNewObject (st: Statements, write: NewObject, now: number, vocabulary: Vocabulary, nicknames: Nicknames): number {
  const base = write.nickname ?? nicknameBase(write.columns.title)
  const placeholder = base === '' ? `~pending-${now}-${Math.random().toString(36).slice(2)}` : null
  const nickname = write.nickname ?? placeholder ?? uniqueNickname(base, base, (c) => nicknames.isTaken(c))
  nicknames.written(nickname)
  const columns = columnValues(write.columns)
  const id = Number(st.run(INSERT, [
    ...COLUMNS.map((c) => columns[c]), write.object_type, nickname, write.status, now, now, write.user_id, write.user_id,
    groupsColumn(write.read_groups), groupsColumn(write.write_groups),
  ]).lastInsertRowid)
  if (placeholder !== null) {
    const generated = uniqueNickname('', `${write.object_type}-${id}`, taken(st))
    st.run('UPDATE objects SET nickname = @n WHERE id = @id', { n: generated, id })
    nicknames.written(generated)
  }
  st.run('INSERT INTO closure (ancestor_id, descendant_id, paths) VALUES (?, ?, 1)', [id, id])
  insertExtras(st, id, write.extras, vocabulary)
  return id
}

function insertExtras (st: Statements, id: number, extras: ObjectExtras, vocabulary: Vocabulary): void {
  for (const [lang, fields] of Object.entries(extras.languages ?? {})) {
    for (const [field, value] of Object.entries(fields)) st.run('INSERT INTO translations VALUES (@id, @lang, @field, @value)', { id, lang, field, value })
  }
  for (const [name, value] of Object.entries(extras.custom_properties ?? {})) st.run('INSERT INTO custom_properties VALUES (?, ?, ?)', [id, name, value])
  for (const g of extras.geo_tags ?? []) {
    st.run(`INSERT INTO geo_tags (object_id, latitude, longitude, address, title, gmaps_lookats)
      VALUES (@id, @latitude, @longitude, @address, @title, @gmaps)`, { id, ...g, gmaps: g.gmaps_lookats === null ? null : JSON.stringify(g.gmaps_lookats) })
  }
  for (const d of extras.date_items ?? []) {
    st.run('INSERT INTO date_items (object_id, start_date, end_date, days) VALUES (@id, @s, @e, @days)', { id, s: d.start_date, e: d.end_date, days: JSON.stringify(d.days) })
  }
  for (const name of new Set(extras.tags ?? [])) st.run(`INSERT OR IGNORE INTO object_tags (object_id, tag_id, publication_date) VALUES (@id, @tag, ${TAG_DATE})`, { id, tag: vocabulary.tag(name) })
  for (const name of new Set(extras.categories ?? [])) st.run('INSERT INTO object_categories VALUES (?, ?)', [id, vocabulary.category(name)])
}
