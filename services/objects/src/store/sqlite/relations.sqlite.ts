import { present } from '@content/platform'
import type { ListQuery, RelationItemWrite, RelationsReads } from '../../core/ports.js'
import type { RelatedRow, SavedRelationRow, Visibility } from '../../core/types.js'
import { amongIds, filterParams, filtered, idsJson, visibilityParams, visibleSql, type Statements } from './rows.sqlite.js'
import { answer } from './transactions.sqlite.js'

export function listRelated (st: Statements, objectId: number, name: string, q: ListQuery): { items: RelatedRow[], total: number } {
  const where = `FROM relations r JOIN objects o ON o.id = r.related_id
    WHERE r.object_id = @id AND r.name = @name AND ${visibleSql(q.visibility)} AND ${filtered(q.filter)}`
  const p = { ...visibilityParams(q.visibility), ...filterParams(q.filter), id: objectId, name, limit: q.limit, offset: q.offset }
  const items = st.all<RelatedRow>(`SELECT r.related_id, r.priority, r.params ${where}
    ORDER BY r.priority IS NULL, r.priority, r.related_id LIMIT @limit OFFSET @offset`, p)
  const total = present(st.one<{ n: number }>(`SELECT COUNT(*) AS n ${where}`, p), 'the COUNT row').n
  return { items, total }
}

export function getRelation (st: Statements, objectId: number, name: string, relatedId: number): RelatedRow | null {
  return st.one<RelatedRow>('SELECT related_id, priority, params FROM relations WHERE object_id = @id AND name = @name AND related_id = @rel',
    { id: objectId, name, rel: relatedId }) ?? null
}

/**
 * Per relation name and object, the first `limit` visible rows, in list order: one statement for every
 * name and object, each (object, name) a primary-key range; the rows past `limit` are dropped here (a
 * ROW_NUMBER() window over the same rows cost more, `loadtest/README.md`, "The query grammar").
 */
export function firstRelated (st: Statements, ids: number[], names: string[], vis: Visibility, limit: number): Map<string, Map<number, RelatedRow[]>> {
  const out = new Map<string, Map<number, RelatedRow[]>>()
  if (ids.length === 0 || names.length === 0) return out
  const rows = st.all<RelatedRow & { object_id: number, name: string }>(`SELECT r.object_id, r.name, r.related_id, r.priority, r.params
      FROM json_each(@ids) i CROSS JOIN json_each(@names) n CROSS JOIN relations r ON r.object_id = i.value AND r.name = n.value
      JOIN objects o ON o.id = r.related_id WHERE ${visibleSql(vis)}
      ORDER BY r.object_id, r.name, r.priority IS NULL, r.priority, r.related_id`, { ids: idsJson([...new Set(ids)]), names: JSON.stringify([...new Set(names)]), ...visibilityParams(vis) })
  for (const { object_id: id, name, ...row } of rows) {
    let byObject = out.get(name)
    if (!byObject) { byObject = new Map(); out.set(name, byObject) }
    const list = byObject.get(id) ?? []
    if (list.length < limit) byObject.set(id, [...list, row])
  }
  return out
}

export function relationCounts (st: Statements, ids: number[], vis: Visibility): Map<number, Map<string, number>> {
  const out = new Map<number, Map<string, number>>()
  if (ids.length === 0) return out
  const { among, params } = amongIds(ids)
  const rows = st.all<{ object_id: number, name: string, n: number }>(
    `SELECT r.object_id, r.name, COUNT(*) AS n FROM relations r JOIN objects o ON o.id = r.related_id
     WHERE r.object_id ${among} AND ${visibleSql(vis)}
     GROUP BY r.object_id, r.name ORDER BY r.object_id, r.name`, { ...params, ...visibilityParams(vis) })
  for (const r of rows) {
    let names = out.get(r.object_id)
    if (!names) { names = new Map(); out.set(r.object_id, names) }
    names.set(r.name, r.n)
  }
  return out
}

function nextPriority (st: Statements, objectId: number, name: string): number {
  return present(st.one<{ n: number }>('SELECT COALESCE(MAX(priority), 0) + 1 AS n FROM relations WHERE object_id = @id AND name = @name',
    { id: objectId, name }), 'the MAX row').n
}

const UPSERT = `INSERT INTO relations (object_id, name, related_id, priority, params) VALUES (@id, @name, @rel, @priority, @params)
  ON CONFLICT (object_id, name, related_id) DO UPDATE SET priority = excluded.priority, params = excluded.params`

/**
 * Creates `objectId -name-> related` and the inverse row, or updates an existing pair: a given
 * priority replaces the old one, given params replace the shared params. Call inside a transaction.
 */
export function saveRelation (st: Statements, objectId: number, name: string, inverse: string, item: RelationItemWrite): SavedRelationRow {
  const existing = getRelation(st, objectId, name, item.related_id)
  if (existing) {
    const priority = item.priority ?? existing.priority
    const params = item.params ?? existing.params
    st.run(UPSERT, { id: objectId, name, rel: item.related_id, priority, params })
    st.run('UPDATE relations SET params = @params WHERE object_id = @rel AND name = @inverse AND related_id = @id',
      { id: objectId, rel: item.related_id, inverse, params })
    return { related_id: item.related_id, priority, params, created: false }
  }
  const priority = item.priority ?? nextPriority(st, objectId, name)
  st.run(UPSERT, { id: objectId, name, rel: item.related_id, priority, params: item.params })
  const back = getRelation(st, item.related_id, inverse, objectId)
  const backPriority = back?.priority ?? nextPriority(st, item.related_id, inverse)
  st.run(UPSERT, { id: item.related_id, name: inverse, rel: objectId, priority: backPriority, params: item.params })
  return { related_id: item.related_id, priority, params: item.params, created: true }
}

/** Sets priority and params of an existing relation (absent values become null). Call inside a transaction. */
export function replaceRelation (st: Statements, objectId: number, name: string, inverse: string, item: RelationItemWrite): boolean {
  const changed = st.run('UPDATE relations SET priority = @priority, params = @params WHERE object_id = @id AND name = @name AND related_id = @rel',
    { id: objectId, name, rel: item.related_id, priority: item.priority, params: item.params }).changes > 0
  if (changed) {
    st.run('UPDATE relations SET params = @params WHERE object_id = @rel AND name = @inverse AND related_id = @id',
      { id: objectId, rel: item.related_id, inverse, params: item.params })
  }
  return changed
}

export function removeRelation (st: Statements, objectId: number, name: string, inverse: string, relatedId: number): boolean {
  const removed = st.run('DELETE FROM relations WHERE object_id = @id AND name = @name AND related_id = @rel',
    { id: objectId, name, rel: relatedId }).changes > 0
  st.run('DELETE FROM relations WHERE object_id = @rel AND name = @inverse AND related_id = @id', { id: objectId, rel: relatedId, inverse })
  return removed
}

export function neighbours (st: Statements, objectId: number): number[] {
  return st.all<{ id: number }>('SELECT DISTINCT related_id AS id FROM relations WHERE object_id = @id', { id: objectId }).map((r) => r.id)
}

export function relationsPort (st: Statements): RelationsReads {
  return {
    list: (id, name, q) => answer(() => listRelated(st, id, name, q)),
    get: (id, name, rel) => answer(() => getRelation(st, id, name, rel)),
    firstOf: (ids, names, vis, limit) => answer(() => firstRelated(st, ids, names, vis, limit)),
    counts: (ids, vis) => answer(() => relationCounts(st, ids, vis)),
    neighbours: (id) => answer(() => neighbours(st, id)),
  }
}
