import { accessSnapshot, surroundingsNeeded, type AccessSnapshot, type ChangeDraft, type Surroundings } from '../../core/change-events.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { ChangesPort } from '../../core/ports.js'
import { changeRow, toEvent, type ChangeRow } from '../sqlite/outbox.sqlite.js'
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

/**
 * The outbox row of a change (outbox.sqlite.ts `changeRow`), read at the moment the change is made (a
 * deletion's before its rows go), in one statement at most: the surroundings it needs and the types the
 * transaction does not know yet (a purged object's from its trash entry). Numbered after the commit.
 */
export async function changeRowNow (db: Db, known: Known, draft: ChangeDraft, at: number): Promise<unknown[]> {
  const ids = [draft.object_id, 'related_id' in draft ? draft.related_id : null, 'parent_id' in draft ? draft.parent_id : null]
    .filter((id): id is number => id !== null && !known.types.has(id))
  const { ancestorsOf, linksOf } = surroundingsNeeded(draft)
  let around: Surroundings = { ancestors: [], parents: [], neighbours: [] }
  if (draft.type === 'object.created' && known.fresh.has(draft.object_id)) {
    around = { ancestors: [draft.object_id], parents: [], neighbours: [] }
  } else if (ancestorsOf !== null || linksOf !== null || ids.length > 0) {
    const row = await db.one<{ ancestors: number[], parents: number[], neighbours: number[], types: string[] }>(`SELECT
        ARRAY(SELECT ancestor_id FROM closure WHERE descendant_id = @a::bigint) AS ancestors,
        ARRAY(SELECT parent_id FROM tree WHERE object_id = @l::bigint ORDER BY seq) AS parents,
        ARRAY(SELECT DISTINCT related_id FROM relations WHERE object_id = @l::bigint) AS neighbours,
        ARRAY(SELECT COALESCE((SELECT object_type FROM objects WHERE id = x.id), (SELECT object_type FROM trash WHERE id = x.id), '')
          FROM unnest(@ids::bigint[]) WITH ORDINALITY x(id, k) ORDER BY k) AS types`, { a: ancestorsOf ?? 0, l: linksOf ?? 0, ids })
    if (row === undefined) throw new Error('no surroundings row')
    around = { ancestors: row.ancestors, parents: row.parents, neighbours: row.neighbours }
    ids.forEach((id, k) => { known.types.set(id, (row.types[k] ?? '') as ObjectTypeName | '') })
  }
  return changeRow(draft, around, (id) => known.types.get(id) ?? '', at, await accessNow(db, draft.object_id))
}

/** The object's access as it stands in the transaction (null: its row is gone, as a purged object's). */
async function accessNow (db: Db, id: number): Promise<AccessSnapshot | null> {
  const row = await db.one<{ status: 'on' | 'off' | 'draft', read_groups: string[] | null, write_groups: string[] | null, start_date: number | null,
    end_date: number | null, parents: number[], ancestors: number[] }>(`SELECT status, read_groups, write_groups, start_date, end_date,
      ARRAY(SELECT parent_id FROM tree WHERE object_id = o.id ORDER BY seq) AS parents,
      ARRAY(SELECT ancestor_id FROM closure WHERE descendant_id = o.id) AS ancestors
    FROM objects o WHERE id = @id::bigint`, { id })
  return row === undefined ? null : accessSnapshot(row, id, row.parents.map(Number), row.ancestors.map(Number))
}

/**
 * Appends a write's change rows, unnumbered, in its transaction; answers their ids (the order they were
 * recorded in). They are numbered once the write committed (Sequencer).
 */
export async function appendChanges (db: Db, rows: unknown[][]): Promise<number[]> {
  const column = (i: number) => rows.map((r) => r[i])
  return (await db.rawAll<[number]>(`INSERT INTO changes (type, object_id, object_type, related_id, related_type, relation, parent_id, parent_type, at, affects, access)
    SELECT type, object_id, object_type, related_id, related_type, relation, parent_id, parent_type, at, affects, access
    FROM unnest(@type::text[], @object_id::bigint[], @object_type::text[], @related_id::bigint[], @related_type::text[], @relation::text[],
      @parent_id::bigint[], @parent_type::text[], @at::bigint[], @affects::text[], @access::text[]) WITH ORDINALITY
      AS r(type, object_id, object_type, related_id, related_type, relation, parent_id, parent_type, at, affects, access, ord)
    ORDER BY ord RETURNING id`, {
    type: column(0), object_id: column(1), object_type: column(2), related_id: column(3), related_type: column(4),
    relation: column(5), parent_id: column(6), parent_type: column(7), at: column(8), affects: column(9), access: column(10),
  })).map((r) => r[0]).sort((a, b) => a - b)
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
