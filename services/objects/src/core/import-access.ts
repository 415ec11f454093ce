import { accessSnapshot, otherEnd, rowAccess, type AccessColumns, type ChangeDraft } from './change-events.js'
import type { NewObject } from './write-steps.js'

/** A new object's access columns, as its row holds them once inserted. */
export const insertedAccess = (o: NewObject): AccessColumns => ({
  status: o.status, read_groups: o.read_groups, write_groups: o.write_groups, start_date: o.columns.start_date ?? null, end_date: o.columns.end_date ?? null,
})

/**
 * What the events of a fixtures import record of who may read their objects, as writing the import one
 * row at a time records it (decisions §17: a live stream sends an event to whoever may read its object).
 * Every event of an import is about one of its new objects: its columns as inserted, its parents as
 * placed so far, its ancestors as the store's closure has them at that moment (the bulk import's caller
 * tells them). An event's other end (a parent, a related object) is new, or an existing object whose
 * columns the caller reads once (`unread`, then `read`): an import changes no existing object's access.
 */
export class ImportAccess {
  private readonly columns = new Map<number, AccessColumns | null>()
  private readonly parents = new Map<number, number[]>()
  /** an object's access as JSON, and the closure rows it was made from (a placement gives the object new ones) */
  private readonly own = new Map<number, { rows: Closure, json: string | null }>()
  /** an other end's access as JSON */
  private readonly others = new Map<number, string | null>()

  inserted (id: number, o: NewObject): void {
    this.columns.set(id, insertedAccess(o))
  }

  /** A new edge: the child's parents are those placed so far, in the order placed. */
  placed (child: number, parent: number): void {
    const parents = this.parents.get(child)
    if (parents === undefined) this.parents.set(child, [parent])
    else parents.push(parent)
    this.own.delete(child)
  }

  /** The event's other end when its columns are not known yet: read it, then `read` it. */
  unread (draft: ChangeDraft): number | null {
    const other = otherEnd(draft)
    return other === null || this.columns.has(other) ? null : other
  }

  /** An existing object's columns as the store has them (undefined: its row is gone). */
  read (id: number, columns: AccessColumns | undefined): void {
    this.columns.set(id, columns ?? null)
  }

  /**
   * The access the event records, as JSON (what `recordedAccess` gives, stringified); `rows`: its object's
   * closure rows as the store has them now ([ancestor, paths], itself included), a new array whenever they
   * changed. A hundred thousand objects make some 400,000 events, most of them about an object whose access
   * has not changed since its last one: each object's JSON is made once per placing, each other end's once.
   */
  recorded (draft: ChangeDraft, rows: Closure): string | null {
    const id = draft.object_id
    let own = this.own.get(id)
    if (own?.rows !== rows) {
      const columns = this.columns.get(id)
      if (columns === undefined) throw new Error(`object ${id} is not one the import inserted`)
      const ancestors = rows.map(([a]) => a).sort((a, b) => a - b)
      own = { rows, json: columns === null ? null : JSON.stringify(accessSnapshot(columns, id, this.parents.get(id) ?? [], ancestors)) }
      this.own.set(id, own)
    }
    const other = otherEnd(draft)
    if (own.json === null || other === null) return own.json
    const json = this.otherJson(other)
    // recordedAccess puts `other` last
    return json === null ? own.json : `${own.json.slice(0, -1)},"other":${json}}`
  }

  private otherJson (id: number): string | null {
    let json = this.others.get(id)
    if (json === undefined) {
      const columns = this.columns.get(id)
      if (columns === undefined) throw new Error(`the access of object ${id} was not read`)
      json = columns === null ? null : JSON.stringify(rowAccess(columns))
      this.others.set(id, json)
    }
    return json
  }
}

/** Closure rows above an object, itself included: [ancestor, paths]. */
type Closure = readonly (readonly [number, number])[]
