import type { Postgres } from '@content/platform/postgres'
import { surroundingsNeeded, type ChangeDraft, type Surroundings } from '../../core/change-events.js'
import { ImportAccess } from '../../core/import-access.js'
import { nicknameBase, nicknameCandidate, uniqueNickname } from '../../core/nickname.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { RelationItemWrite } from '../../core/ports.js'
import type { ImportSteps, NewObject } from '../../core/write-steps.js'
import { changeRow } from '../sqlite/outbox.sqlite.js'
import { BULK_STATEMENT_TIMEOUT_MS, type Db } from './db.postgres.js'
import { accessColumns } from './objects.postgres.js'
import { saveRelation } from './relations.postgres.js'
import { groupsColumn } from './rows.postgres.js'
import type { PgWrite } from './transactions.postgres.js'
import { placeChild } from './tree.postgres.js'
import { COLUMNS, columnValues } from '../sql-columns.js'
import { upsertVocabulary } from './writes.postgres.js'

const OBJECT_COLUMNS = ['id', 'nickname', 'object_type', 'status', ...COLUMNS, 'created', 'modified', 'user_created', 'user_modified', 'read_groups', 'write_groups']
/** Rows a COPY into a table the triggers join adds before the table is analyzed (the statistics it gave the planner may be far off). */
const ANALYZE_AT = 1_000
/** Candidates of one root a round of `nicknames` asks the store about at once. */
const NEXT_CANDIDATES = 16
/** An import's events go in numbered (`finish`). */
const CHANGE_COLUMNS = ['seq', 'type', 'object_id', 'object_type', 'related_id', 'related_type', 'relation', 'parent_id', 'parent_type', 'at', 'affects', 'access']

/** Rows waiting for their COPY, per table, in the order they must reach the store (keys before what refers to them). */
class Buffers {
  readonly tables = new Map<string, { columns: readonly string[], rows: unknown[][] }>()
  /** rows copied so far */
  copied = 0
  add (table: string, columns: readonly string[], row: unknown[]): void {
    let t = this.tables.get(table)
    if (t === undefined) { t = { columns, rows: [] }; this.tables.set(table, t) }
    t.rows.push(row)
  }

  /** Copies every table's rows but those of `keep`, which wait for a later flush. */
  async flush (db: Db, keep?: string): Promise<void> {
    for (const [table, t] of this.tables) {
      if (table === keep) continue
      const rows = t.rows.splice(0)
      await db.copy(table, t.columns, rows)
      this.copied += rows.length
      // the kept counts' triggers join what the next COPY adds with `objects` and `object_tags`: planned
      // on their statistics from before the import (an empty store: one row), each join of a large
      // import walked every row once per row (50 s of 65 for 10,000 objects); analyzed, it is a hash join
      if (rows.length >= ANALYZE_AT && (table === 'objects' || table === 'object_tags')) await db.run(`ANALYZE ${table}`)
    }
  }
}

/**
 * The steps of a fixtures import on PostgreSQL, in one transaction: the rows and events of inserting each
 * object, placing each child and saving each relation one by one, written with COPY. What those would look
 * up row by row — ids, nicknames, positions, types, ancestors, tag and category ids — is looked up once
 * and followed in memory, since every row an import writes involves an object it inserts: its objects,
 * extras, closure and tree rows, relations and events wait in buffers and reach the store in a few COPY
 * statements (`finish`), the kept counts' triggers counting each table's rows in one statement. Only the
 * placing of an object under which the import already placed others runs as SQL, the buffers first.
 */
export class PostgresImportSteps implements ImportSteps {
  private readonly buffers = new Buffers()
  private readonly types = new Map<number, ObjectTypeName | ''>()
  /** closure rows above a node (itself included): [ancestor, paths] */
  private readonly ancestors = new Map<number, [number, number][]>()
  /** the import's objects, with the least id: an object from it on is new, its positions start at 1 */
  private readonly inserted = new Set<number>()
  private readonly hasChildren = new Set<number>()
  private readonly next = new Map<string, number>()
  /** the new objects' closure rows below their ancestors: `a d` → [paths, priority] */
  private readonly pairs = new Map<string, [number, number, number, number]>()
  /** what each event records of who may read its object, as writing it alone would */
  private readonly access = new ImportAccess()

  constructor (private readonly tx: PgWrite) {}

  private get db (): Db { return this.tx.db }

  async allExist (ids: number[]): Promise<boolean> {
    const rows = await this.db.rawAll<[number, ObjectTypeName]>('SELECT id, object_type FROM objects WHERE id = ANY(@ids::bigint[])', { ids })
    for (const [id, type] of rows) this.types.set(id, type)
    return rows.length === new Set(ids).size
  }

  saveVocabulary (kind: 'tags' | 'categories', item: { name: string, label: string }): Promise<void> {
    return upsertVocabulary(this.db, kind, item)
  }

  async insertNewObjects (objects: NewObject[], now: number): Promise<number[]> {
    const ids = (await this.db.rawAll<[number]>("SELECT nextval('objects_id_seq') FROM generate_series(1, @n::int)", { n: objects.length })).map((r) => r[0])
    const nicknames = await this.nicknames(objects, ids)
    const tagIds = await this.vocabularyIds('tags', objects.flatMap((o) => o.extras.tags ?? []))
    const categoryIds = await this.vocabularyIds('categories', objects.flatMap((o) => o.extras.categories ?? []))
    objects.forEach((o, i) => {
      const id = ids[i] as number
      const columns = columnValues(o.columns)
      this.buffers.add('objects', OBJECT_COLUMNS, [id, nicknames[i], o.object_type, o.status, ...COLUMNS.map((c) => columns[c] ?? null),
        now, now, o.user_id, o.user_id, groupsColumn(o.read_groups), groupsColumn(o.write_groups)])
      this.buffers.add('nicknames', ['nickname', 'object_id'], [nicknames[i], id])
      this.buffers.add('closure', ['ancestor_id', 'descendant_id', 'paths', 'priority'], [id, id, 1, null])
      this.extras(id, o, tagIds, categoryIds)
      this.types.set(id, o.object_type)
      this.ancestors.set(id, [[id, 1]])
      this.inserted.add(id)
      this.access.inserted(id, o)
    })
    return ids
  }

  /**
   * Each object's nickname as insertObject would give it, one after the other. The store is asked by exact
   * nickname (its key's index), in rounds: the roots first; then, for each object whose next candidate it
   * was not asked, that candidate and the ones after it. A round assigns every nickname from what is known,
   * an unknown candidate counted free, so each round settles the first unknown of every object, and two
   * rounds do for most files. (Matching `root-%` patterns instead walks every nickname once per pattern:
   * a second file of 100,000 objects ran for minutes.)
   */
  private async nicknames (objects: NewObject[], ids: number[]): Promise<string[]> {
    const roots = objects.map((o, i) => (o.nickname ?? (nicknameBase(o.columns.title) || `${o.object_type}-${ids[i]}`)))
    const known = new Map<string, boolean>()
    const ask = async (candidates: Iterable<string>) => {
      const fresh = [...new Set(candidates)].filter((c) => !known.has(c))
      if (fresh.length === 0) return
      const taken = new Set((await this.db.rawAll<[string]>('SELECT nickname FROM nicknames WHERE nickname = ANY(@c::text[])', { c: fresh })).map((r) => r[0]))
      for (const c of fresh) known.set(c, taken.has(c))
    }
    await ask(roots.filter((_, i) => objects[i]?.nickname === null))
    for (;;) {
      const unknown: [string, number][] = []
      const assigned = new Set<string>()
      const nicknames = objects.map((o, i) => {
        // an explicit nickname taken meanwhile is refused by the key of `nicknames` when it is copied
        if (o.nickname !== null) {
          assigned.add(o.nickname)
          return o.nickname
        }
        const root = roots[i] as string
        let n = 0
        const nickname = uniqueNickname(root, root, (c) => {
          const inStore = known.get(c)
          if (inStore === undefined) unknown.push([root, n])
          n++
          return assigned.has(c) || inStore === true
        })
        assigned.add(nickname)
        return nickname
      })
      if (unknown.length === 0) return nicknames
      await ask(unknown.flatMap(([root, from]) => Array.from({ length: NEXT_CANDIDATES }, (_, k) => nicknameCandidate(root, from + k))))
    }
  }

  private async vocabularyIds (kind: 'tags' | 'categories', names: string[]): Promise<Map<string, number>> {
    const wanted = [...new Set(names)]
    if (wanted.length === 0) return new Map()
    if (kind === 'tags') await this.db.run('INSERT INTO tags (name, label) SELECT n, n FROM unnest(@names::text[]) n ORDER BY n ON CONFLICT (name) DO NOTHING', { names: wanted })
    const found = new Map(await this.db.rawAll<[string, number]>(`SELECT name, id FROM ${kind} WHERE name = ANY(@names::text[])`, { names: wanted }))
    for (const name of wanted) if (!found.has(name)) throw new Error(`unknown ${kind === 'tags' ? 'tag' : 'category'} "${name}"`)
    return found
  }

  private extras (id: number, o: NewObject, tagIds: Map<string, number>, categoryIds: Map<string, number>): void {
    const e = o.extras
    const b = this.buffers
    for (const [lang, fields] of Object.entries(e.languages ?? {})) {
      for (const [field, value] of Object.entries(fields)) b.add('translations', ['object_id', 'lang', 'field', 'value'], [id, lang, field, value])
    }
    for (const [name, value] of Object.entries(e.custom_properties ?? {})) b.add('custom_properties', ['object_id', 'name', 'value'], [id, name, value])
    for (const g of e.geo_tags ?? []) {
      b.add('geo_tags', ['object_id', 'latitude', 'longitude', 'address', 'title', 'gmaps_lookats'],
        [id, g.latitude, g.longitude, g.address, g.title, g.gmaps_lookats === null ? null : JSON.stringify(g.gmaps_lookats)])
    }
    for (const d of e.date_items ?? []) b.add('date_items', ['object_id', 'start_date', 'end_date', 'days'], [id, d.start_date, d.end_date, JSON.stringify(d.days)])
    for (const name of new Set(e.tags ?? [])) b.add('object_tags', ['object_id', 'tag_id', 'publication_date'], [id, tagIds.get(name), o.columns.publication_date])
    for (const name of new Set(e.categories ?? [])) b.add('object_categories', ['object_id', 'category_id'], [id, categoryIds.get(name)])
  }

  /** The next free position under `id` (a relation name, or '' for children), read from the store the first time for an existing object. */
  private async take (id: number, name: string, given: number | null): Promise<number> {
    const key = `${id}\u0000${name}`
    const known = this.next.get(key) ?? (this.inserted.has(id) ? 1 : await this.stored(id, name))
    const priority = given ?? known
    this.next.set(key, Math.max(known, priority + 1))
    return priority
  }

  /** The next free position as the store has it now. */
  private async stored (id: number, name: string): Promise<number> {
    return name === ''
      ? (await this.db.one<{ n: number }>('SELECT COALESCE(MAX(priority), 0) + 1 AS n FROM tree WHERE parent_id = @p', { p: id }))?.n ?? 1
      : (await this.db.one<{ n: number }>('SELECT COALESCE(MAX(priority), 0) + 1 AS n FROM relations WHERE object_id = @id AND name = @name', { id, name }))?.n ?? 1
  }

  private async ancestorsOf (id: number): Promise<[number, number][]> {
    let rows = this.ancestors.get(id)
    if (rows === undefined) {
      rows = await this.db.rawAll<[number, number]>('SELECT ancestor_id, paths FROM closure WHERE descendant_id = @id', { id })
      this.ancestors.set(id, rows)
    }
    return rows
  }

  async placeNewChild (parentId: number, child: number): Promise<void> {
    if (this.hasChildren.has(child)) {
      // the child's subtree is more than itself: joined in SQL, on what the buffers hold
      await this.copyRows()
      const placed = await placeChild(this.db, parentId, child, null)
      this.next.set(`${parentId}\u0000`, placed.priority + 1)
      // the edge changed the ancestors of the child's subtree alone: the others' stay known (their events read them)
      for (const [id] of await this.db.rawAll<[number]>('SELECT descendant_id FROM closure WHERE ancestor_id = @c', { c: child })) this.ancestors.delete(Number(id))
    } else {
      const priority = await this.take(parentId, '', null)
      this.buffers.add('tree', ['parent_id', 'object_id', 'priority'], [parentId, child, priority])
      // one pair per ancestor of the parent, each of which has the parent inside its subtree: keyed by this edge's priority
      const above = await this.ancestorsOf(parentId)
      for (const [ancestor, paths] of above) {
        const key = `${ancestor} ${child}`
        const pair = this.pairs.get(key)
        if (pair === undefined) this.pairs.set(key, [ancestor, child, paths, priority])
        else this.pairs.set(key, [ancestor, child, pair[2] + paths, Math.min(pair[3], priority)])
      }
      const mine = this.ancestors.get(child) ?? [[child, 1]]
      const merged = new Map(mine)
      for (const [a, n] of above) merged.set(a, (merged.get(a) ?? 0) + n)
      this.ancestors.set(child, [...merged])
    }
    this.hasChildren.add(parentId)
    this.access.placed(child, parentId)
  }

  async relateNew (id: number, name: string, inverse: string, related: number, priority: number | null, params: string | null): Promise<void> {
    const columns = ['object_id', 'name', 'related_id', 'priority', 'params']
    this.buffers.add('relations', columns, [id, name, related, await this.take(id, name, priority), params])
    this.buffers.add('relations', columns, [related, inverse, id, await this.take(related, inverse, null), params])
  }

  async saveRelation (id: number, name: string, inverse: string, item: RelationItemWrite) {
    // a pair the file lists again: as the write step saves it, on what the buffers hold, its positions read again
    await this.copyRows()
    const saved = await saveRelation(this.db, id, name, inverse, item)
    this.next.set(`${id}\u0000${name}`, await this.stored(id, name))
    this.next.set(`${item.related_id}\u0000${inverse}`, await this.stored(item.related_id, inverse))
    return saved
  }

  appendChanges (drafts: readonly ChangeDraft[]): Promise<void> | undefined {
    const pending: ChangeDraft[] = []
    for (const draft of drafts) {
      // an event waits for what it reads that memory does not hold: ancestors (its object's, and a node's
      // for its surroundings), its other end's access
      const { ancestorsOf } = surroundingsNeeded(draft)
      if (pending.length > 0 || !this.ancestors.has(draft.object_id) || (ancestorsOf !== null && !this.ancestors.has(ancestorsOf)) || this.access.unread(draft) !== null) pending.push(draft)
      else this.buffers.add('changes', CHANGE_COLUMNS, this.rowOf(draft, ancestorsOf))
    }
    if (pending.length === 0) return undefined
    return (async () => {
      for (const draft of pending) {
        const { ancestorsOf } = surroundingsNeeded(draft)
        if (ancestorsOf !== null) await this.ancestorsOf(ancestorsOf)
        await this.ancestorsOf(draft.object_id)
        const other = this.access.unread(draft)
        if (other !== null) this.access.read(other, await accessColumns(this.db, other))
        this.buffers.add('changes', CHANGE_COLUMNS, this.rowOf(draft, ancestorsOf))
      }
    })()
  }

  /**
   * An event's row as recordChange reads it: a new object's object.created has no links yet, and every
   * other event of an import (child.added, relation.*) needs at most the ancestors of a node.
   */
  private rowOf (draft: ChangeDraft, ancestorsOf: number | null): unknown[] {
    const around: Surroundings = { ancestors: ancestorsOf === null ? [] : (this.ancestors.get(ancestorsOf) ?? []).map(([a]) => a), parents: [], neighbours: [] }
    const access = this.access.recorded(draft, this.ancestors.get(draft.object_id) ?? [])
    return changeRow(draft, around, (id) => this.types.get(id) ?? '', this.tx.at, access)
  }

  /** The tables a large import wrote, for tidyAfterImport (none for a small one: autovacuum's thresholds serve it). */
  written (): string[] {
    return this.buffers.copied >= TIDY_AT ? [...this.buffers.tables.keys()] : []
  }

  /** Copies the rows the buffers hold into the store, the closure's new pairs with them; the events wait for `finish`. */
  private async copyRows (): Promise<void> {
    for (const [, pair] of this.pairs) this.buffers.add('closure', ['ancestor_id', 'descendant_id', 'paths', 'priority'], [...pair])
    this.pairs.clear()
    await this.buffers.flush(this.db, 'changes')
  }

  /**
   * The import's end: its rows copied, then its events, each with its number (Sequencer.reserve: written
   * once, never rewritten by a numbering run; the write tells of them once it commits). Nothing reads the outbox
   * within the import, so its events wait in their buffer until now, and the numbering lock is held for
   * the last copy and the commit only.
   */
  async finish (): Promise<void> {
    await this.copyRows()
    const events = this.buffers.tables.get('changes')?.rows ?? []
    if (events.length === 0) return
    const first = await this.tx.reserveNumbers(events.length)
    events.forEach((row, i) => { row.unshift(first + i) })
    await this.buffers.flush(this.db)
  }
}

/** Rows an import copies from which it vacuums and analyzes what it wrote (tidyAfterImport). */
const TIDY_AT = 10_000

/** The kept counts an import adds to (kept-counts.postgres.ts, tag counts), folded after it. */
const KEPT_COUNTS = ['child_counts', 'descendant_counts', 'tag_counts']

/**
 * After an import: the tables it wrote vacuumed and analyzed. Without statistics the planner takes a large
 * import's tables for the small ones it last saw (a page of children took 1.5 s after 200,000 objects, until
 * autovacuum came by), and the numbering of its events left a dead version of each in the partial index of
 * unnumbered events, which every numbering run walked (1 s each). On a connection of its own (VACUUM runs
 * in no transaction), under the bulk bound.
 */
export async function tidyAfterImport (postgres: Postgres, written: readonly string[]): Promise<void> {
  if (written.length === 0) return
  const session = await postgres.session()
  try {
    await session.query(`SET statement_timeout = ${BULK_STATEMENT_TIMEOUT_MS}`)
    await session.query(`VACUUM (ANALYZE) ${[...new Set([...written, ...KEPT_COUNTS])].join(', ')}`)
  } finally {
    await session.end()
  }
}
