import type { ChangeType } from '../../core/change-events.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { Statements } from './rows.sqlite.js'

/** Rows per INSERT: one statement of many rows costs about half as much per row as one per row. */
const BATCH = 50
const ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'
const insertRows = (rows: number) =>
  `INSERT INTO changes (type, object_id, object_type, related_id, related_type, relation, parent_id, parent_type, at, affects) VALUES ${Array(rows).fill(ROW).join(', ')}`
const INSERT_BATCH = insertRows(BATCH)

const sorted = (ids: Iterable<number>): string => JSON.stringify([...new Set(ids)].sort((a, b) => a - b))

/**
 * The change events of a fixtures plan, the same rows `recordChange` writes, without its per-event
 * look-ups: types of new objects are known, those of existing ones read once, and the ancestors of a
 * parent are kept until a placement changes them. What each event affects follows `affectedIds`: a new
 * object (still unplaced and unrelated) only itself, an edge the child and the parent with its ancestors,
 * a relation both ends. Rows are written in order, a batch at a time: call `flush` last.
 */
export class ChangeRows {
  last = 0
  private readonly pending: unknown[] = []
  private readonly types = new Map<number, ObjectTypeName | ''>()
  private readonly ancestorsOf = new Map<number, [number, number][]>()
  constructor (private readonly st: Statements, private readonly at: number) {}

  known (id: number, type: ObjectTypeName): void { this.types.set(id, type) }

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

  /** A new edge above `child` changes the ancestors of its subtree: of the child alone while it has no children. */
  placed (child: number, hasChildren: boolean): void {
    if (hasChildren) this.ancestorsOf.clear()
    else this.ancestorsOf.delete(child)
  }

  objectCreated (id: number): void {
    this.insert({ type: 'object.created', object_id: id, affects: `[${id}]` })
  }

  childAdded (child: number, parent: number): void {
    const affects = sorted([child, ...this.ancestors(parent).map(([a]) => a), parent])
    this.insert({ type: 'child.added', object_id: child, parent_id: parent, parent_type: this.typeOf(parent), affects })
  }

  relation (type: 'relation.created' | 'relation.updated', id: number, name: string, related: number): void {
    this.insert({ type, object_id: id, relation: name, related_id: related, related_type: this.typeOf(related), affects: sorted([id, related]) })
  }

  private typeOf (id: number): ObjectTypeName | '' {
    let type = this.types.get(id)
    if (type === undefined) {
      type = this.st.one<{ t: ObjectTypeName }>('SELECT object_type AS t FROM objects WHERE id = @id', { id })?.t ?? ''
      this.types.set(id, type)
    }
    return type
  }

  private insert (row: { type: ChangeType, object_id: number, affects: string, related_id?: number, related_type?: string, relation?: string, parent_id?: number, parent_type?: string }): void {
    this.pending.push(row.type, row.object_id, this.typeOf(row.object_id), row.related_id ?? null, row.related_type ?? null, row.relation ?? null,
      row.parent_id ?? null, row.parent_type ?? null, this.at, row.affects)
    if (this.pending.length === BATCH * 10) this.flush()
  }

  /** Writes the rows still pending; `last` is then the number of the last event. */
  flush (): void {
    const rows = this.pending.length / 10
    if (rows === 0) return
    this.last = Number(this.st.run(rows === BATCH ? INSERT_BATCH : insertRows(rows), this.pending).lastInsertRowid)
    this.pending.length = 0
  }
}
