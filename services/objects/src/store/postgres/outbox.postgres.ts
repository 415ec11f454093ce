import { accessSnapshot, otherEnd, recordedAccess, rowAccess, surroundingsNeeded, type AccessSnapshot, type ChangeDraft, type RowAccess, type Surroundings } from '../../core/change-events.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { ChangesPort } from '../../core/ports.js'
import pg from 'pg'
import { CHANGE_COLUMNS, changeRow, toEvent, type ChangeRow } from '../sqlite/outbox.sqlite.js'
import type { Db } from './db.postgres.js'

/**
 * The channel a commit's last event number is told on, to every process that follows the store: one per
 * schema, as NOTIFY reaches every session of the database.
 */
export const changesChannel = (schema: string): string => `content_objects_changes:${schema}`

/**
 * What a transaction already knows for its events: the types of objects it met (an id's type never
 * changes) and the objects it created whose rows have no links yet (their object.created event reads
 * nothing: its object is its only ancestor, it has no parents and no relations).
 */
export interface Known {
  types: Map<number, ObjectTypeName | ''>
  fresh: Set<number>
}

/** An object's access columns, and its parents and ancestors (`o`: its row, or none), and the other end's columns (`p`), as one statement's select list reads them. */
const ACCESS_COLUMNS = `o.status, o.read_groups, o.write_groups, o.start_date, o.end_date,
  ARRAY(SELECT parent_id FROM tree WHERE object_id = o.id ORDER BY seq) AS object_parents,
  ARRAY(SELECT ancestor_id FROM closure WHERE descendant_id = o.id ORDER BY ancestor_id) AS object_ancestors,
  p.status AS other_status, p.read_groups AS other_read_groups, p.write_groups AS other_write_groups, p.start_date AS other_start_date,
  p.end_date AS other_end_date`

interface AccessRow {
  status: 'on' | 'off' | 'draft' | null, read_groups: string[] | null, write_groups: string[] | null, start_date: number | null,
  end_date: number | null, object_parents: number[] | null, object_ancestors: number[] | null,
  other_status: 'on' | 'off' | 'draft' | null, other_read_groups: string[] | null, other_write_groups: string[] | null,
  other_start_date: number | null, other_end_date: number | null
}

/** The access of object `id` from its columns (null: its row is gone, as a purged object's). */
const accessOf = (row: AccessRow, id: number): AccessSnapshot | null => (row.status === null
  ? null
  : accessSnapshot({ ...row, status: row.status }, id, (row.object_parents ?? []).map(Number), (row.object_ancestors ?? []).map(Number)))

/** The access of the change's other end from its columns (`p`; null: none, or its row is gone). */
const otherOf = (row: AccessRow): RowAccess | null => (row.other_status === null
  ? null
  : rowAccess({ status: row.other_status, read_groups: row.other_read_groups, write_groups: row.other_write_groups, start_date: row.other_start_date, end_date: row.other_end_date }))

/**
 * What a call's changes read, one row per change that reads anything, in their order (`k`): the
 * surroundings it needs (`a`: ancestors of, `l`: links of; 0 for none), the types of the ids it names
 * that the transaction does not know yet (`ids`, each with its change's `k` in `of`; a purged object's
 * from its trash entry), and the access of its object (`obj`, once per object, else 0) and of its other end
 * (`oth`, 0 for none) as they stand in the transaction.
 */
const SURROUNDINGS = `SELECT
    ARRAY(SELECT ancestor_id FROM closure WHERE descendant_id = d.a) AS ancestors,
    ARRAY(SELECT parent_id FROM tree WHERE object_id = d.l ORDER BY seq) AS parents,
    ARRAY(SELECT DISTINCT related_id FROM relations WHERE object_id = d.l) AS neighbours,
    ARRAY(SELECT COALESCE((SELECT object_type FROM objects WHERE id = x.id), (SELECT object_type FROM trash WHERE id = x.id), '')
      FROM unnest(@ids::bigint[], @of::bigint[]) WITH ORDINALITY x(id, of, n) WHERE x.of = d.k ORDER BY n) AS types,
    ${ACCESS_COLUMNS}
  FROM unnest(@a::bigint[], @l::bigint[], @obj::bigint[], @oth::bigint[]) WITH ORDINALITY d(a, l, obj, oth, k)
    LEFT JOIN objects o ON o.id = d.obj LEFT JOIN objects p ON p.id = d.oth
  ORDER BY d.k`

type SurroundingsRow = { ancestors: number[], parents: number[], neighbours: number[], types: string[] } & AccessRow

/**
 * The outbox rows of a write's changes (outbox.sqlite.ts `changeRow`), read at the moment they are made (a
 * deletion's before its rows go): one statement for the changes of a call (SURROUNDINGS), which see one
 * state, so an object's access is read once for them (an edge's other end, once per change). Numbered after the commit.
 */
export async function changeRowsNow (db: Db, known: Known, drafts: readonly ChangeDraft[], at: number): Promise<unknown[][]> {
  const accessAsked = new Set<number>()
  const looks = drafts.map((draft) => {
    const ids = [draft.object_id, 'related_id' in draft ? draft.related_id : null, 'parent_id' in draft ? draft.parent_id : null]
      .filter((id): id is number => id !== null && !known.types.has(id))
    const { ancestorsOf, linksOf } = surroundingsNeeded(draft)
    const fresh = draft.type === 'object.created' && known.fresh.has(draft.object_id)
    const around = !fresh && (ancestorsOf !== null || linksOf !== null || ids.length > 0)
    const readsAccess = !accessAsked.has(draft.object_id)
    accessAsked.add(draft.object_id)
    const other = otherEnd(draft) ?? 0
    return { draft, fresh, around, readsAccess, other, ids: around ? ids : [], ancestorsOf: around ? ancestorsOf ?? 0 : 0, linksOf: around ? linksOf ?? 0 : 0 }
  })
  const asked = looks.filter((l) => l.around || l.readsAccess || l.other !== 0)
  const found = asked.length === 0
    ? []
    : await db.all<SurroundingsRow>(SURROUNDINGS, {
      a: asked.map((l) => l.ancestorsOf), l: asked.map((l) => l.linksOf), obj: asked.map((l) => (l.readsAccess ? l.draft.object_id : 0)), oth: asked.map((l) => l.other),
      ids: asked.flatMap((l) => l.ids), of: asked.flatMap((l, k) => l.ids.map(() => k + 1)),
    })
  if (found.length !== asked.length) throw new Error('no surroundings row')
  const arounds = new Map<ChangeDraft, Surroundings>()
  const access = new Map<number, AccessSnapshot | null>()
  const others = new Map<ChangeDraft, RowAccess | null>()
  asked.forEach((l, k) => {
    const row = found[k] as SurroundingsRow
    if (l.around) {
      arounds.set(l.draft, { ancestors: row.ancestors, parents: row.parents, neighbours: row.neighbours })
      l.ids.forEach((id, j) => { known.types.set(id, (row.types[j] ?? '') as ObjectTypeName | '') })
    }
    if (l.readsAccess) access.set(l.draft.object_id, accessOf(row, l.draft.object_id))
    if (l.other !== 0) others.set(l.draft, otherOf(row))
  })
  return looks.map(({ draft, fresh }) => {
    const around = arounds.get(draft) ?? { ancestors: fresh ? [draft.object_id] : [], parents: [], neighbours: [] }
    return changeRow(draft, around, (id) => known.types.get(id) ?? '', at, recordedAccess(draft, access.get(draft.object_id) ?? null, others.get(draft) ?? null))
  })
}

/** Which of an outbox row's values (CHANGE_COLUMNS) are integers; the others are text or null. */
const INTEGERS = new Set(['object_id', 'related_id', 'parent_id', 'at'])

/** A value of an outbox row written into a statement: an integer or quoted text, never anything else. */
function literal (value: unknown, integer: boolean): string {
  if (value === null) return 'NULL'
  if (integer && typeof value === 'number' && Number.isSafeInteger(value)) return String(value)
  if (!integer && typeof value === 'string') return pg.escapeLiteral(value)
  throw new Error(`not an outbox value: ${typeof value}`)
}

/**
 * Appends a write's change rows, unnumbered, and commits, in one round trip: the rows are written into the
 * statement (as literals: `literal` admits only integers and text, quoted), which goes with `COMMIT` as one
 * message, where the insert and the commit were a round trip each (loadtest/README.md, "A create's own
 * rows, not read back"). Answers the rows' ids, the order they were recorded in; they are numbered once the
 * write committed (Sequencer). A failed insert ends the message there, the transaction aborted: the
 * caller rolls it back.
 */
export async function commitWithChanges (client: pg.ClientBase, rows: unknown[][]): Promise<number[]> {
  if (rows.length === 0) {
    await client.query('COMMIT')
    return []
  }
  const values = rows.map((row) => `(${CHANGE_COLUMNS.map((column, i) => literal(row[i], INTEGERS.has(column))).join(', ')})`)
  const results = await client.query(`INSERT INTO changes (${CHANGE_COLUMNS.join(', ')}) VALUES ${values.join(', ')} RETURNING id; COMMIT`) as unknown as pg.QueryResult<{ id: number | string }>[]
  return (results[0]?.rows ?? []).map((r) => Number(r.id)).sort((a, b) => a - b)
}

export const lastChangeSeq = async (db: Db): Promise<number> =>
  (await db.one<{ last: number }>('SELECT last FROM change_head'))?.last ?? 0

export function changesPort (db: Db): ChangesPort {
  return {
    after: async (seq, limit) => (await db.rawAll<ChangeRow>(`SELECT seq, type, object_id, object_type, related_id, related_type, relation,
      parent_id, parent_type, at, affects, access FROM changes WHERE seq > @seq ORDER BY seq LIMIT @limit`, { seq, limit })).map(toEvent),
    bounds: async () => {
      const row = await db.one<{ first: number | null, last: number }>('SELECT (SELECT MIN(seq) FROM changes) AS first, last FROM change_head')
      return { first: row?.first ?? null, last: row?.last ?? 0 }
    },
    prune: (before, keepAfter) => db.run('DELETE FROM changes WHERE at < @before AND seq <= @keepAfter', { before, keepAfter }),
  }
}
