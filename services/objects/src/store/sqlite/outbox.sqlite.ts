import { present } from '@content/platform'
import {
  accessSnapshot, affectedIds, otherEnd, recordedAccess, rowAccess, surroundingsNeeded,
  type AccessColumns, type AccessSnapshot, type ChangeDraft, type ChangeEvent, type ChangeType, type Surroundings,
} from '../../core/change-events.js'
import type { Status } from '../../core/types.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { ChangesPort } from '../../core/ports.js'
import { parentsOf } from './tree.sqlite.js'
import { neighbours } from './relations.sqlite.js'
import type { Statements } from './rows.sqlite.js'
import { answer } from './transactions.sqlite.js'

const typeOf = (st: Statements, id: number): ObjectTypeName | '' =>
  // a purged object's type comes from its trash entry, recorded before it goes
  st.one<{ t: ObjectTypeName }>('SELECT object_type AS t FROM objects WHERE id = @id UNION ALL SELECT object_type FROM trash WHERE id = @id', { id })?.t ?? ''

function surroundings (st: Statements, draft: ChangeDraft): Surroundings {
  const { ancestorsOf, linksOf } = surroundingsNeeded(draft)
  return {
    ancestors: ancestorsOf === null ? [] : st.all<{ a: number }>('SELECT ancestor_id AS a FROM closure WHERE descendant_id = @id', { id: ancestorsOf }).map((r) => r.a),
    parents: linksOf === null ? [] : parentsOf(st, linksOf),
    neighbours: linksOf === null ? [] : neighbours(st, linksOf),
  }
}

/** The object's access columns as they stand now (undefined: its row is gone, as a purged object's). */
export function accessColumns (st: Statements, id: number): AccessColumns | undefined {
  const row = st.one<{ status: Status, read_groups: string | null, write_groups: string | null, start_date: number | null, end_date: number | null }>(
    'SELECT status, read_groups, write_groups, start_date, end_date FROM objects WHERE id = @id', { id })
  const groups = (text: string | null) => (text === null ? null : JSON.parse(text) as string[])
  return row === undefined ? undefined : { ...row, read_groups: groups(row.read_groups), write_groups: groups(row.write_groups) }
}

/** The object's access as it stands now (null: its row is gone, as a purged object's). */
export function accessOf (st: Statements, id: number): AccessSnapshot | null {
  const row = accessColumns(st, id)
  if (row === undefined) return null
  return accessSnapshot(row, id, parentsOf(st, id), st.all<{ a: number }>('SELECT ancestor_id AS a FROM closure WHERE descendant_id = @id ORDER BY ancestor_id', { id }).map((r) => r.a))
}

/** The access a change records: its object's, with its other end's (`otherEnd`). */
function changeAccess (st: Statements, draft: ChangeDraft): AccessSnapshot | null {
  const other = otherEnd(draft)
  const columns = other === null ? undefined : accessColumns(st, other)
  return recordedAccess(draft, accessOf(st, draft.object_id), columns === undefined ? null : rowAccess(columns))
}

/** The columns of an outbox row, in the order `changeRow` answers their values. */
export const CHANGE_COLUMNS = ['type', 'object_id', 'object_type', 'related_id', 'related_type', 'relation', 'parent_id', 'parent_type', 'at', 'affects', 'access'] as const

/**
 * The outbox row of a change, its types read through `typeOf`, what it affects by `affectedIds`, and the
 * access of its object (null: not recorded; a string: as JSON already, made once for many events).
 */
export function changeRow (draft: ChangeDraft, around: Surroundings, typeOf: (id: number) => ObjectTypeName | '', at: number, access: AccessSnapshot | string | null): unknown[] {
  const related = 'related_id' in draft ? draft.related_id : null
  const parent = 'parent_id' in draft ? draft.parent_id : null
  return [draft.type, draft.object_id, typeOf(draft.object_id), related, related === null ? null : typeOf(related),
    'relation' in draft ? draft.relation : null, parent, parent === null ? null : typeOf(parent), at, JSON.stringify(affectedIds(draft, around)),
    access === null || typeof access === 'string' ? access : JSON.stringify(access)]
}

const INSERT = `INSERT INTO changes (${CHANGE_COLUMNS.join(', ')}) VALUES (${CHANGE_COLUMNS.map(() => '?').join(', ')})`

/**
 * Appends a change event to the outbox. Call inside the write's transaction, at the moment the change
 * is made: a deletion is recorded before the rows go, so its types and surroundings are still there.
 * Returns the event's sequence number.
 */
export function recordChange (st: Statements, draft: ChangeDraft, at: number): number {
  return Number(st.run(INSERT, changeRow(draft, surroundings(st, draft), (id) => typeOf(st, id), at, changeAccess(st, draft))).lastInsertRowid)
}

/** `seq`, then the values of CHANGE_COLUMNS in their order. */
export type ChangeRow = [seq: number, type: ChangeType, object_id: number, object_type: string, related_id: number | null, related_type: string | null,
  relation: string | null, parent_id: number | null, parent_type: string | null, at: number, affects: string, access: string | null]

/** An outbox row as an event (the PostgreSQL store's rows have the same columns). */
export function toEvent ([seq, type, objectId, objectType, relatedId, relatedType, relation, parentId, parentType, at, affects, access]: ChangeRow): ChangeEvent {
  const event: ChangeEvent = { seq, type, object_id: objectId, object_type: objectType as ObjectTypeName | '', at, affects: JSON.parse(affects) as number[] }
  if (access !== null) event.access = JSON.parse(access) as AccessSnapshot
  if (relatedId !== null) Object.assign(event, { related_id: relatedId, related_type: relatedType ?? '' })
  if (relation !== null) event.relation = relation
  if (parentId !== null) Object.assign(event, { parent_id: parentId, parent_type: parentType ?? '' })
  return event
}

// rows as arrays: half the cost of rows as objects, and the feed reads back every event written
const AFTER = `SELECT seq, ${CHANGE_COLUMNS.join(', ')} FROM changes WHERE seq > @seq AND seq <= @upTo ORDER BY seq LIMIT @limit`

/** The events after `seq`, up to `upTo` (the events of a transaction still open are not told). */
export function changesAfter (st: Statements, seq: number, limit: number, upTo = Number.MAX_SAFE_INTEGER): ChangeEvent[] {
  return st.rawAll<ChangeRow>(AFTER, { seq, limit, upTo }).map(toEvent)
}

/** The last number ever given (0 for none): AUTOINCREMENT keeps it in sqlite_sequence past pruning. */
export const lastChangeSeq = (st: Statements): number =>
  st.one<{ s: number }>("SELECT seq AS s FROM sqlite_sequence WHERE name = 'changes'")?.s ?? 0

/** The oldest retained event's number (null when none is) and the last number ever given (0 for none). */
export function changeBounds (st: Statements): { first: number | null, last: number } {
  return { first: present(st.one<{ s: number | null }>('SELECT MIN(seq) AS s FROM changes'), 'the MIN row').s, last: lastChangeSeq(st) }
}

/** Drops events committed before `before` (ms), keeping every event after `keepAfter`. */
export function pruneChanges (st: Statements, before: number, keepAfter: number): number {
  return st.run('DELETE FROM changes WHERE at < @before AND seq <= @keepAfter', { before, keepAfter }).changes
}

/** `visibleUpTo`: the last event a reader may be told now (commits.sqlite.ts: none of an open transaction's). */
export function changesPort (st: Statements, visibleUpTo: () => number): ChangesPort {
  return {
    after: (seq, limit) => answer(() => changesAfter(st, seq, limit, visibleUpTo())),
    bounds: () => answer(() => {
      const { first, last } = changeBounds(st)
      return { first, last: Math.min(last, visibleUpTo()) }
    }),
    prune: (before, keepAfter) => answer(() => pruneChanges(st, before, keepAfter)),
  }
}
