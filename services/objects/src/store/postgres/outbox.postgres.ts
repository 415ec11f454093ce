import { surroundingsNeeded, type ChangeDraft, type ChangeEvent, type ChangeType, type Surroundings } from '../../core/change-events.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { ChangesPort } from '../../core/ports.js'
import { changeRow } from '../sqlite/outbox.sqlite.js'
import type { Db } from './db.postgres.js'

/**
 * The channel a commit's last event number is told on, to every process that follows the store: one per
 * schema, as NOTIFY reaches every session of the database.
 */
export const changesChannel = (schema: string): string => `content_objects_changes:${schema}`

const typeOf = async (db: Db, id: number): Promise<ObjectTypeName | ''> =>
  // a purged object's type comes from its trash entry, recorded before it goes
  (await db.one<{ t: ObjectTypeName }>('SELECT object_type AS t FROM objects WHERE id = @id UNION ALL SELECT object_type FROM trash WHERE id = @id LIMIT 1', { id }))?.t ?? ''

async function surroundings (db: Db, draft: ChangeDraft): Promise<Surroundings> {
  const { ancestorsOf, linksOf } = surroundingsNeeded(draft)
  if (ancestorsOf === null && linksOf === null) return { ancestors: [], parents: [], neighbours: [] }
  const row = await db.one<{ ancestors: number[], parents: number[], neighbours: number[] }>(`SELECT
      ARRAY(SELECT ancestor_id FROM closure WHERE descendant_id = @a::bigint) AS ancestors,
      ARRAY(SELECT parent_id FROM tree WHERE object_id = @l::bigint ORDER BY seq) AS parents,
      ARRAY(SELECT DISTINCT related_id FROM relations WHERE object_id = @l::bigint) AS neighbours`, { a: ancestorsOf ?? 0, l: linksOf ?? 0 })
  return row ?? { ancestors: [], parents: [], neighbours: [] }
}

/**
 * The outbox row of a change (outbox.sqlite.ts `changeRow`), read at the moment the change is made: a
 * deletion's before its rows go. The row is numbered when the write commits (appendChanges).
 */
export async function changeRowNow (db: Db, draft: ChangeDraft, at: number): Promise<unknown[]> {
  const ids = [draft.object_id, 'related_id' in draft ? draft.related_id : null, 'parent_id' in draft ? draft.parent_id : null].filter((id): id is number => id !== null)
  const types = new Map<number, ObjectTypeName | ''>()
  for (const id of ids) if (!types.has(id)) types.set(id, await typeOf(db, id))
  return changeRow(draft, await surroundings(db, draft), (id) => types.get(id) ?? '', at)
}

/**
 * Numbers a write's change rows and appends them, as the last statement before its commit, and tells
 * every process that listens (NOTIFY is delivered on commit). The number comes from the one row of
 * `change_head`, whose lock the transaction then holds until it commits: a later writer waits for it and
 * numbers after it, so the numbers follow the commit order, and a write that rolls back takes its numbers
 * with it, so none is ever skipped. A reader that sees event n therefore sees every event before it. The
 * lock is held for this statement and the commit only: whatever a write does before runs in parallel.
 */
export async function appendChanges (db: Db, rows: unknown[][], channel: string, origin: string): Promise<number> {
  const column = (i: number) => rows.map((r) => r[i])
  const row = await db.one<{ last: number }>(`WITH head AS (UPDATE change_head SET last = last + @n RETURNING last),
    added AS (INSERT INTO changes (seq, type, object_id, object_type, related_id, related_type, relation, parent_id, parent_type, at, affects)
      SELECT head.last - @n + r.ord, r.type, r.object_id, r.object_type, r.related_id, r.related_type, r.relation, r.parent_id, r.parent_type, r.at, r.affects
      FROM head CROSS JOIN unnest(@type::text[], @object_id::bigint[], @object_type::text[], @related_id::bigint[], @related_type::text[], @relation::text[],
        @parent_id::bigint[], @parent_type::text[], @at::bigint[], @affects::text[]) WITH ORDINALITY
        AS r(type, object_id, object_type, related_id, related_type, relation, parent_id, parent_type, at, affects, ord))
    SELECT last, pg_notify(@channel, last || ' ' || @origin::text) FROM head`, {
    n: rows.length, type: column(0), object_id: column(1), object_type: column(2), related_id: column(3), related_type: column(4),
    relation: column(5), parent_id: column(6), parent_type: column(7), at: column(8), affects: column(9), channel, origin,
  })
  if (row === undefined) throw new Error('the change_head row is missing')
  return row.last
}

type ChangeTuple = [seq: number, type: ChangeType, object_id: number, object_type: string, related_id: number | null, related_type: string | null,
  relation: string | null, parent_id: number | null, parent_type: string | null, at: number, affects: string]

function toEvent ([seq, type, objectId, objectType, relatedId, relatedType, relation, parentId, parentType, at, affects]: ChangeTuple): ChangeEvent {
  const event: ChangeEvent = { seq, type, object_id: objectId, object_type: objectType as ObjectTypeName | '', at, affects: JSON.parse(affects) as number[] }
  if (relatedId !== null) Object.assign(event, { related_id: relatedId, related_type: relatedType ?? '' })
  if (relation !== null) event.relation = relation
  if (parentId !== null) Object.assign(event, { parent_id: parentId, parent_type: parentType ?? '' })
  return event
}

export const lastChangeSeq = async (db: Db): Promise<number> =>
  (await db.one<{ last: number }>('SELECT last FROM change_head'))?.last ?? 0

export function changesPort (db: Db): ChangesPort {
  return {
    after: async (seq, limit) => (await db.rawAll<ChangeTuple>(`SELECT seq, type, object_id, object_type, related_id, related_type, relation,
      parent_id, parent_type, at, affects FROM changes WHERE seq > @seq ORDER BY seq LIMIT @limit`, { seq, limit })).map(toEvent),
    bounds: async () => {
      const row = await db.one<{ first: number | null, last: number }>('SELECT (SELECT MIN(seq) FROM changes) AS first, last FROM change_head')
      return { first: row?.first ?? null, last: row?.last ?? 0 }
    },
    prune: (before, keepAfter) => db.run('DELETE FROM changes WHERE at < @before AND seq <= @keepAfter', { before, keepAfter }),
  }
}
