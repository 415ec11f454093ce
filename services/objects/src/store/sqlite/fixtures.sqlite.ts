import type { ChangeDraft } from '../../core/change-events.js'
import type { RelationItemWrite } from '../../core/ports.js'
import type { SavedRelationRow } from '../../core/types.js'
import type { ImportSteps, NewObject } from '../../core/write-steps.js'
import { ChangeRows } from './fixtures-changes.sqlite.js'
import { insertNewObject, Nicknames, Vocabulary } from './fixtures-objects.sqlite.js'
import { keptCountsInBulk } from './kept-counts.sqlite.js'
import { saveRelation } from './relations.sqlite.js'
import type { Statements } from './rows.sqlite.js'
import { restateOrder } from './subtree-order.sqlite.js'
import { upsertVocabulary } from './writes.sqlite.js'

/**
 * The steps of a fixtures import on SQLite, run in one transaction (sqlite.store.ts). The rows and
 * events are exactly those of inserting each object, placing each child and saving each relation one by
 * one, but what those would look up row by row — tree and relation positions, types, ancestors,
 * vocabulary ids — is looked up once and then followed in memory, since every row an import writes
 * involves an object it inserted. Its events are written a batch at a time, and the kept counts of its
 * edges in one statement at the end: call `finish` once the import's steps are done.
 *
 * The caller may turn SQLite's foreign-key checks off: every row written joins a new object or one of
 * the existing objects the import names, checked by `allExist` under the write lock.
 */
export class SqliteImportSteps implements ImportSteps {
  private readonly vocabulary: Vocabulary
  private readonly changes: ChangeRows
  /** the least id the import inserted (null: none yet), from which its edges are counted */
  private least: number | null = null
  /** whether the kept counts' insert triggers are off until `finish` */
  private countsOff = false
  private readonly tree: Positions
  private readonly relations: Positions
  /** objects of the import that got children (their subtree is more than themselves) */
  private readonly hasChildren = new Set<number>()

  constructor (private readonly st: Statements, at: number) {
    this.vocabulary = new Vocabulary(st)
    this.changes = new ChangeRows(st, at)
    this.tree = new Positions(() => this.least, (parent) =>
      st.one<{ n: number }>('SELECT COALESCE(MAX(priority), 0) + 1 AS n FROM tree WHERE parent_id = @p', { p: parent })?.n ?? 1)
    this.relations = new Positions(() => this.least, (id, name) =>
      st.one<{ n: number }>('SELECT COALESCE(MAX(priority), 0) + 1 AS n FROM relations WHERE object_id = @id AND name = @name', { id, name })?.n ?? 1)
  }

  /** The number of the last event written (0: none): what the commit tells. */
  get lastSeq (): number { return this.changes.last }

  allExist (ids: number[]): boolean {
    const found = this.st.one<{ n: number }>('SELECT COUNT(*) AS n FROM objects WHERE id IN (SELECT value FROM json_each(@ids))', { ids: JSON.stringify(ids) })
    return found?.n === ids.length
  }

  saveVocabulary (kind: 'tags' | 'categories', item: { name: string, label: string }): void {
    upsertVocabulary(this.st, kind, item)
  }

  insertNewObjects (objects: NewObject[], now: number): number[] {
    // the kept counts of the import's edges are counted at its end; each new text waits in text_pending,
    // which the indexer moves with a worker thread, off this one
    if (!this.countsOff) keptCountsInBulk.off(this.st.db)
    this.countsOff = true
    const nicknames = new Nicknames(this.st, objects)
    return objects.map((o) => {
      const id = insertNewObject(this.st, o, now, this.vocabulary, nicknames)
      this.least ??= id
      this.changes.known(id, o)
      return id
    })
  }

  /**
   * Appended after the parent's last child, its closure rows joined from the parent's ancestors and the
   * child's subtree (which holds only the child unless it got children of its own earlier in the import).
   */
  placeNewChild (parentId: number, child: number): void {
    const { st } = this
    const priority = this.tree.take(parentId, '', null)
    st.run('INSERT INTO tree (parent_id, object_id, priority) VALUES (?, ?, ?)', [parentId, child, priority])
    const subtree = this.hasChildren.has(child)
    if (subtree) {
      st.run(`INSERT INTO closure (ancestor_id, descendant_id, paths)
        SELECT a.ancestor_id, d.descendant_id, a.paths * d.paths FROM closure a JOIN closure d
        ON a.descendant_id = @p AND d.ancestor_id = @c WHERE true
        ON CONFLICT (ancestor_id, descendant_id) DO UPDATE SET paths = paths + excluded.paths`, { p: parentId, c: child })
      restateOrder(st, parentId, child, 'subtree')
    } else {
      // the child's subtree is the child alone: one row per ancestor of the parent, each of which has
      // the parent inside its subtree, so the new edge's priority counts for every one
      for (const [ancestor, paths] of this.changes.ancestors(parentId)) {
        st.run(`INSERT INTO closure (ancestor_id, descendant_id, paths, priority) VALUES (?, ?, ?, ?)
          ON CONFLICT (ancestor_id, descendant_id) DO UPDATE SET paths = paths + excluded.paths,
          priority = MIN(priority, excluded.priority)`, [ancestor, child, paths, priority])
      }
    }
    this.changes.placed(child, parentId, subtree)
    this.hasChildren.add(parentId)
  }

  relateNew (id: number, name: string, inverse: string, related: number, priority: number | null, params: string | null): void {
    // bound by position, as every hot statement here: binding by name costs more than inserting a small row
    const insert = 'INSERT INTO relations (object_id, name, related_id, priority, params) VALUES (?, ?, ?, ?, ?)'
    this.st.run(insert, [id, name, related, this.relations.take(id, name, priority), params])
    this.st.run(insert, [related, inverse, id, this.relations.take(related, inverse, null), params])
    this.changes.related(id, related)
  }

  /** A pair saved again (as saveRelation does): its positions are read afresh from the store after it. */
  saveRelation (id: number, name: string, inverse: string, item: RelationItemWrite): SavedRelationRow {
    const saved = saveRelation(this.st, id, name, inverse, item)
    this.relations.reread(id, name)
    this.relations.reread(item.related_id, inverse)
    this.changes.related(id, item.related_id)
    return saved
  }

  appendChanges (drafts: readonly ChangeDraft[]): void {
    this.changes.record(drafts)
  }

  /** Writes the events still pending and counts the import's edges: the end of its steps, before the commit. */
  finish (): void {
    this.changes.flush()
    if (this.countsOff) keptCountsInBulk.on(this.st.db, this.least)
  }
}

/**
 * Next free priority per object and name (a relation name; '' for children), read from the store the first
 * time a pair is met and counted on from there. An object the import inserted has no rows but those it
 * writes: its ids come after every id ever given (AUTOINCREMENT), so none is read.
 */
class Positions {
  private readonly next = new Map<number, Map<string, number>>()
  constructor (private readonly firstNew: () => number | null, private readonly read: (id: number, name: string) => number) {}
  take (id: number, name: string, given: number | null): number {
    const names = this.namesOf(id)
    const first = this.firstNew()
    const known = names.get(name) ?? (first !== null && id >= first ? 1 : this.read(id, name))
    const priority = given ?? known
    names.set(name, Math.max(known, priority + 1))
    return priority
  }

  /** After rows were written around this count (new objects' ones too): read the store again. */
  reread (id: number, name: string): void {
    this.namesOf(id).set(name, this.read(id, name))
  }

  private namesOf (id: number): Map<string, number> {
    let names = this.next.get(id)
    if (names === undefined) {
      names = new Map()
      this.next.set(id, names)
    }
    return names
  }
}
