import { surroundingsNeeded, type ChangeDraft, type Surroundings } from '../../core/change-events.js'
import { ImportAccess } from '../../core/import-access.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { NewObject } from '../../core/write-steps.js'
import { accessColumns, CHANGE_COLUMNS, changeRow } from './outbox.sqlite.js'
import { neighbours } from './relations.sqlite.js'
import type { Statements } from './rows.sqlite.js'
import { parentsOf } from './tree.sqlite.js'

/** Rows per INSERT: one statement of many rows costs less per row than one per row (loadtest/README.md, "Bulk loading"). */
const BATCH = 50
const ROW = `(${CHANGE_COLUMNS.map(() => '?').join(', ')})`
const insertRows = (rows: number) => `INSERT INTO changes (${CHANGE_COLUMNS.join(', ')}) VALUES ${Array(rows).fill(ROW).join(', ')}`
const INSERT_BATCH = insertRows(BATCH)

/**
 * The change events of a fixtures import: the rows `recordChange` writes (`changeRow`), without its
 * per-event look-ups. Types of new objects are known and those of existing ones read once; the
 * ancestors of a node are kept until a placement changes them (a new object's are itself); a new
 * object has no parents or related objects until the import links it. Each event records its object's
 * access as writing it alone would (ImportAccess). Rows are written in order, a batch at a time: call
 * `flush` last.
 */
export class ChangeRows {
  last = 0
  private readonly pending: unknown[] = []
  private readonly types = new Map<number, ObjectTypeName | ''>()
  private readonly ancestorsOf = new Map<number, [number, number][]>()
  /** the import's new objects, and those of them it placed or related (their links are read from the store) */
  private readonly created = new Set<number>()
  private readonly linked = new Set<number>()
  private readonly access = new ImportAccess()
  constructor (private readonly st: Statements, private readonly at: number) {}

  /** A new object: its type, its access, and its one closure row. */
  known (id: number, object: NewObject): void {
    this.types.set(id, object.object_type)
    this.access.inserted(id, object)
    this.created.add(id)
    this.ancestorsOf.set(id, [[id, 1]])
  }

  /** Closure rows above `id` (itself included): [ancestor, paths]. */
  ancestors (id: number): [number, number][] {
    let rows = this.ancestorsOf.get(id)
    if (rows === undefined) {
      rows = this.st.all<{ a: number, n: number }>('SELECT ancestor_id AS a, paths AS n FROM closure WHERE descendant_id = @id', { id })
        .map((r) => [r.a, r.n])
      this.ancestorsOf.set(id, rows)
    }
    return rows
  }

  /**
   * A new edge above `child` changes the ancestors of its subtree: of the child alone while it has no
   * children, which gains the parent's (their paths added, as its closure rows were; called once they are
   * written, so a child not known here is read afresh when asked).
   */
  placed (child: number, parent: number, hasChildren: boolean): void {
    const before = this.ancestorsOf.get(child)
    if (hasChildren) this.ancestorsOf.clear()
    else if (before === undefined) this.ancestorsOf.delete(child)
    else {
      const merged = new Map(before)
      for (const [a, n] of this.ancestors(parent)) merged.set(a, (merged.get(a) ?? 0) + n)
      this.ancestorsOf.set(child, [...merged])
    }
    this.linked.add(child)
    this.access.placed(child, parent)
  }

  /** A relation between `id` and `other` was written. */
  related (id: number, other: number): void {
    this.linked.add(id)
    this.linked.add(other)
  }

  record (drafts: readonly ChangeDraft[]): void {
    for (const draft of drafts) {
      const other = this.access.unread(draft)
      if (other !== null) this.access.read(other, accessColumns(this.st, other))
      const access = this.access.recorded(draft, this.ancestors(draft.object_id))
      this.pending.push(...changeRow(draft, this.surroundings(draft), (id) => this.typeOf(id), this.at, access))
      if (this.pending.length === BATCH * CHANGE_COLUMNS.length) this.flush()
    }
  }

  /** Writes the rows still pending; `last` is then the number of the last event. */
  flush (): void {
    const rows = this.pending.length / CHANGE_COLUMNS.length
    if (rows === 0) return
    this.last = Number(this.st.run(rows === BATCH ? INSERT_BATCH : insertRows(rows), this.pending).lastInsertRowid)
    this.pending.length = 0
  }

  private surroundings (draft: ChangeDraft): Surroundings {
    const { ancestorsOf, linksOf } = surroundingsNeeded(draft)
    const ancestors = ancestorsOf === null ? [] : this.ancestors(ancestorsOf).map(([a]) => a)
    // a new object not yet placed or related has no links
    if (linksOf === null || (this.created.has(linksOf) && !this.linked.has(linksOf))) return { ancestors, parents: [], neighbours: [] }
    return { ancestors, parents: parentsOf(this.st, linksOf), neighbours: neighbours(this.st, linksOf) }
  }

  private typeOf (id: number): ObjectTypeName | '' {
    let type = this.types.get(id)
    if (type === undefined) {
      type = this.st.one<{ t: ObjectTypeName }>('SELECT object_type AS t FROM objects WHERE id = @id', { id })?.t ?? ''
      this.types.set(id, type)
    }
    return type
  }
}
