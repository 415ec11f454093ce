import { present } from '@content/platform'
import { TargetGone } from '../../core/conflicts.js'
import type { ListQuery, RelationItemWrite, RelationsReads } from '../../core/ports.js'
import type { RelatedRow, SavedRelationRow, Visibility } from '../../core/types.js'
import type { Db } from './db.postgres.js'
import { filterParams, filtered, visibilityParams, visibleSql } from './rows.postgres.js'

export async function listRelated (db: Db, objectId: number, name: string, q: ListQuery): Promise<{ items: RelatedRow[], total: number }> {
  const where = `FROM relations r JOIN objects o ON o.id = r.related_id
    WHERE r.object_id = @id AND r.name = @name AND ${visibleSql(q.visibility)} AND ${filtered(q.filter)}`
  const p = { ...visibilityParams(q.visibility), ...filterParams(q.filter), id: objectId, name, limit: q.limit, offset: q.offset }
  const [items, total] = await Promise.all([
    db.all<RelatedRow>(`SELECT r.related_id, r.priority, r.params ${where} ORDER BY r.priority NULLS LAST, r.related_id LIMIT @limit OFFSET @offset`, p),
    db.one<{ n: number }>(`SELECT COUNT(*) AS n ${where}`, p),
  ])
  return { items, total: present(total, 'the COUNT row').n }
}

export async function getRelation (db: Db, objectId: number, name: string, relatedId: number): Promise<RelatedRow | null> {
  return (await db.one<RelatedRow>('SELECT related_id, priority, params FROM relations WHERE object_id = @id AND name = @name AND related_id = @rel',
    { id: objectId, name, rel: relatedId })) ?? null
}

/** Per relation name and object, the first `limit` visible rows in list order: one statement, a window per (object, name). */
export async function firstRelated (db: Db, ids: number[], names: string[], vis: Visibility, limit: number): Promise<Map<string, Map<number, RelatedRow[]>>> {
  const out = new Map<string, Map<number, RelatedRow[]>>()
  if (ids.length === 0 || names.length === 0) return out
  const rows = await db.all<RelatedRow & { object_id: number, name: string }>(`SELECT object_id, name, related_id, priority, params FROM (
      SELECT r.object_id, r.name, r.related_id, r.priority, r.params,
        row_number() OVER (PARTITION BY r.object_id, r.name ORDER BY r.priority NULLS LAST, r.related_id) AS k
      FROM relations r JOIN objects o ON o.id = r.related_id
      WHERE r.object_id = ANY(@ids::bigint[]) AND r.name = ANY(@names::text[]) AND ${visibleSql(vis)}) ranked
    WHERE k <= @limit ORDER BY object_id, name, k`, { ids: [...new Set(ids)], names: [...new Set(names)], limit, ...visibilityParams(vis) })
  for (const { object_id: id, name, ...row } of rows) {
    let byObject = out.get(name)
    if (!byObject) { byObject = new Map(); out.set(name, byObject) }
    const list = byObject.get(id) ?? []
    list.push(row)
    byObject.set(id, list)
  }
  return out
}

export async function relationCounts (db: Db, ids: number[], vis: Visibility): Promise<Map<number, Map<string, number>>> {
  const out = new Map<number, Map<string, number>>()
  if (ids.length === 0) return out
  const rows = await db.all<{ object_id: number, name: string, n: number }>(
    `SELECT r.object_id, r.name, COUNT(*) AS n FROM relations r JOIN objects o ON o.id = r.related_id
     WHERE r.object_id = ANY(@ids::bigint[]) AND ${visibleSql(vis)} GROUP BY r.object_id, r.name ORDER BY r.object_id, r.name`, { ids, ...visibilityParams(vis) })
  for (const r of rows) {
    let names = out.get(r.object_id)
    if (!names) { names = new Map(); out.set(r.object_id, names) }
    names.set(r.name, r.n)
  }
  return out
}

export async function neighbours (db: Db, objectId: number): Promise<number[]> {
  return (await db.rawAll<[number]>('SELECT DISTINCT related_id FROM relations WHERE object_id = @id', { id: objectId })).map((r) => r[0])
}

const nextPriority = async (db: Db, objectId: number, name: string): Promise<number> =>
  present(await db.one<{ n: number }>('SELECT COALESCE(MAX(priority), 0) + 1 AS n FROM relations WHERE object_id = @id AND name = @name', { id: objectId, name }), 'the MAX row').n

/**
 * Both ends of a new relation, locked in id order until the write ends: two writers appending relations
 * to one object take its next priorities one after the other (each end's MAX + 1, as SQLite's one writer
 * does), a concurrent deletion of either end waits for the write or, having committed first, leaves it
 * nothing to link (TargetGone), and two writers relating the same two objects from either side do not
 * deadlock.
 */
async function lockBothEnds (db: Db, a: number, b: number): Promise<void> {
  const locked = await db.all<{ id: number }>('SELECT id FROM objects WHERE id IN (@a, @b) ORDER BY id FOR NO KEY UPDATE', { a, b })
  if (locked.length < new Set([a, b]).size) throw new TargetGone()
}

const INSERT = 'INSERT INTO relations (object_id, name, related_id, priority, params) VALUES (@id, @name, @rel, @priority, @params)'
const UPSERT = `${INSERT} ON CONFLICT (object_id, name, related_id) DO UPDATE SET priority = excluded.priority, params = excluded.params`
/** the row only when no one has it: a concurrent writer's insert is waited for, and then wins */
const INSERT_NEW = `${INSERT} ON CONFLICT (object_id, name, related_id) DO NOTHING`

/**
 * Creates `objectId -name-> related` and its inverse row, or updates an existing pair (relations.sqlite.ts
 * `saveRelation`). Two writers may both find the pair absent (another replica, READ COMMITTED): the insert
 * waits for the other's commit and takes the row only when it is still free, so exactly one of them
 * creates it (and records relation.created); the other updates what the first made.
 */
export async function saveRelation (db: Db, objectId: number, name: string, inverse: string, item: RelationItemWrite): Promise<SavedRelationRow> {
  let existing = await getRelation(db, objectId, name, item.related_id)
  if (existing === null) {
    await lockBothEnds(db, objectId, item.related_id)
    const priority = item.priority ?? await nextPriority(db, objectId, name)
    if (await db.run(INSERT_NEW, { id: objectId, name, rel: item.related_id, priority, params: item.params }) > 0) {
      const back = await getRelation(db, item.related_id, inverse, objectId)
      const backPriority = back?.priority ?? await nextPriority(db, item.related_id, inverse)
      await db.run(UPSERT, { id: item.related_id, name: inverse, rel: objectId, priority: backPriority, params: item.params })
      return { related_id: item.related_id, priority, params: item.params, created: true }
    }
    existing = present(await getRelation(db, objectId, name, item.related_id), 'the relation a concurrent write created')
  }
  const priority = item.priority ?? existing.priority
  const params = item.params ?? existing.params
  await db.run(UPSERT, { id: objectId, name, rel: item.related_id, priority, params })
  await db.run('UPDATE relations SET params = @params WHERE object_id = @rel AND name = @inverse AND related_id = @id', { id: objectId, rel: item.related_id, inverse, params })
  return { related_id: item.related_id, priority, params, created: false }
}

/** Sets priority and params of an existing relation (absent values become null). */
export async function replaceRelation (db: Db, objectId: number, name: string, inverse: string, item: RelationItemWrite): Promise<boolean> {
  const changed = await db.run('UPDATE relations SET priority = @priority, params = @params WHERE object_id = @id AND name = @name AND related_id = @rel',
    { id: objectId, name, rel: item.related_id, priority: item.priority, params: item.params }) > 0
  if (changed) await db.run('UPDATE relations SET params = @params WHERE object_id = @rel AND name = @inverse AND related_id = @id', { id: objectId, rel: item.related_id, inverse, params: item.params })
  return changed
}

export async function removeRelation (db: Db, objectId: number, name: string, inverse: string, relatedId: number): Promise<boolean> {
  const removed = await db.run('DELETE FROM relations WHERE object_id = @id AND name = @name AND related_id = @rel', { id: objectId, name, rel: relatedId }) > 0
  await db.run('DELETE FROM relations WHERE object_id = @rel AND name = @inverse AND related_id = @id', { id: objectId, rel: relatedId, inverse })
  return removed
}

export function relationsReads (db: Db): RelationsReads {
  return {
    list: (id, name, q) => listRelated(db, id, name, q),
    get: (id, name, rel) => getRelation(db, id, name, rel),
    firstOf: (ids, names, vis, limit) => firstRelated(db, ids, names, vis, limit),
    counts: (ids, vis) => relationCounts(db, ids, vis),
    neighbours: (id) => neighbours(db, id),
  }
}
