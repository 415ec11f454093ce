import { present } from '@content/platform'
import { PlacementConflict } from '../../core/conflicts.js'
import type { ChildCounts, ChildScope, IdPage, ListQuery, TreeReads } from '../../core/ports.js'
import type { SavedChildRow, Visibility } from '../../core/types.js'
import { withDrafts } from '../../core/visibility.js'
import type { Db } from './db.postgres.js'
import { SCOPE, countChildren, countChildrenOf, countDescendants } from './kept-counts.postgres.js'
import { VISIBLE, filterParams, filtered, visibilityParams, visibleSql } from './rows.postgres.js'

const listParams = (q: ListQuery) => ({ ...visibilityParams(q.visibility), ...filterParams(q.filter), exclude: q.exclude ?? null, limit: q.limit, offset: q.offset })

/** Rows in an order of columns, the whole of a list's order (each ends in the id, so it is strict). */
interface Ordered { id: string, from: string, order: string[] }
interface PageSql extends Ordered {
  /** the kept tally for an unfiltered list; null to count the rows */
  tally: string | null
  /** the same rows read from an index alone, for when the tally says the reader sees every row */
  walk: Ordered | null
}

const pageOf = (rows: Ordered, backwards: boolean) =>
  `SELECT ${rows.id} AS id ${rows.from} ORDER BY ${rows.order.map((c) => (backwards ? `${c} DESC` : c)).join(', ')} LIMIT @limit OFFSET @offset`

/** A page and its total, as tree.sqlite.ts reads it: kept totals, an index walk when all rows show, the far half backwards. */
async function page (store: Db, p: Record<string, unknown> & { offset: number, limit: number }, q: PageSql): Promise<IdPage> {
  // a node holds anything from no child to a million descendants: its rows joined to their objects are
  // planned for this one (Db.perRun); the kept tally (a few count rows by node) and the index walk (a
  // range of one index in its order) are one plan for every node, made once per connection (planned per
  // run, the tally alone cost PostgreSQL 0.38 ms a page, ten times its running)
  const db = store.perRun
  const kept = q.tally === null ? null : present(await store.one<{ n: number, rows: number }>(q.tally, p), 'the count row')
  const rows = kept !== null && q.walk !== null && kept.n === kept.rows ? q.walk : q
  const runs = rows === q.walk ? store : db
  const ids = async (sql: string, params: Record<string, unknown>) => (await runs.rawAll<[number]>(sql, params)).map((r) => r[0])
  if (kept === null) {
    const [list, total] = await Promise.all([ids(pageOf(rows, false), p), db.one<{ n: number }>(`SELECT COUNT(*) AS n ${q.from}`, p)])
    return { ids: list, total: present(total, 'the COUNT row').n }
  }
  const after = kept.n - p.offset - p.limit
  if (after >= p.offset) return { ids: await ids(pageOf(rows, false), p), total: kept.n }
  const fromEnd = { ...p, offset: Math.max(after, 0), limit: Math.max(Math.min(p.limit, kept.n - p.offset), 0) }
  return { ids: (await ids(pageOf(rows, true), fromEnd)).reverse(), total: kept.n }
}

export function listChildren (db: Db, parentId: number, scope: ChildScope, q: ListQuery): Promise<IdPage> {
  const p = { ...listParams(q), node: parentId }
  const unfiltered = q.filter.object_types.length === 0 && q.filter.query === '' && p.exclude === null && !withDrafts(q.visibility)
  return page(db, p, {
    id: 't.object_id',
    from: `FROM tree t JOIN objects o ON o.id = t.object_id
      WHERE t.parent_id = @node ${SCOPE[scope]} AND (@exclude::bigint IS NULL OR t.object_id <> @exclude) AND ${visibleSql(q.visibility)} AND ${filtered(q.filter)}`,
    order: ['t.priority', 't.object_id'],
    tally: unfiltered ? countChildren(scope, VISIBLE) : null,
    walk: scope === 'all' ? { id: 'object_id', from: 'FROM tree WHERE parent_id = @node', order: ['priority', 'object_id'] } : null,
  })
}

export function listDescendants (db: Db, nodeId: number, order: 'tree' | 'id', q: ListQuery): Promise<IdPage> {
  const p = { ...listParams(q), node: nodeId }
  // the reflexive row's priority is NULL: the tree order puts it last, and it is left out anyway
  const columns = (prefix: string) => (order === 'id' ? [`${prefix}descendant_id`] : [`${prefix}priority`, `${prefix}descendant_id`])
  return page(db, p, {
    id: 'c.descendant_id',
    from: `FROM closure c JOIN objects o ON o.id = c.descendant_id
      WHERE c.ancestor_id = @node AND c.descendant_id <> @node AND ${visibleSql(q.visibility)} AND ${filtered(q.filter)}`,
    order: columns('c.'),
    tally: q.filter.object_types.length === 0 && q.filter.query === '' && !withDrafts(q.visibility) ? countDescendants(VISIBLE) : null,
    walk: { id: 'descendant_id', from: 'FROM closure WHERE ancestor_id = @node AND descendant_id <> @node', order: columns('') },
  })
}

export async function parentsOf (db: Db, objectId: number): Promise<number[]> {
  return (await db.rawAll<[number]>('SELECT parent_id FROM tree WHERE object_id = @id ORDER BY seq', { id: objectId })).map((r) => r[0])
}

export async function ancestorsOf (db: Db, objectId: number): Promise<number[]> {
  const first = (id: string) => `(SELECT parent_id FROM tree WHERE object_id = ${id} ORDER BY seq LIMIT 1)`
  return (await db.rawAll<[number]>(`WITH RECURSIVE up(id, depth) AS (
      SELECT ${first('@id::bigint')}, 1
      UNION ALL
      SELECT ${first('up.id')}, depth + 1 FROM up WHERE up.id IS NOT NULL AND depth < 256
    ) SELECT id FROM up WHERE id IS NOT NULL ORDER BY depth DESC`, { id: objectId })).map((r) => r[0])
}

export async function childCounts (db: Db, parentIds: number[], vis: Visibility): Promise<Map<number, ChildCounts>> {
  const out = new Map<number, ChildCounts>()
  if (parentIds.length === 0) return out
  // the kept counts are of published sets: a writer's drafts are counted row by row
  const sql = withDrafts(vis)
    ? `SELECT t.parent_id, COUNT(*) FILTER (WHERE o.object_type = 'section') AS sections, COUNT(*) FILTER (WHERE o.object_type <> 'section') AS contents
      FROM tree t JOIN objects o ON o.id = t.object_id WHERE t.parent_id = ANY(@ids::bigint[]) AND ${visibleSql(vis)} GROUP BY t.parent_id`
    : countChildrenOf(VISIBLE)
  for (const r of await db.all<{ parent_id: number, sections: number, contents: number }>(sql, { ids: parentIds, ...visibilityParams(vis) })) {
    out.set(r.parent_id, { sections: r.sections, contents: r.contents })
  }
  return out
}

export async function positionOf (db: Db, parentId: number, childId: number): Promise<number | null> {
  return (await db.one<{ priority: number }>('SELECT priority FROM tree WHERE parent_id = @p AND object_id = @c', { p: parentId, c: childId }))?.priority ?? null
}

export const hasChildren = async (db: Db, parentId: number): Promise<boolean> =>
  (await db.one('SELECT 1 FROM tree WHERE parent_id = @p LIMIT 1', { p: parentId })) !== undefined

export const isAncestor = async (db: Db, ancestorId: number, descendantId: number): Promise<boolean> =>
  (await db.one('SELECT 1 FROM closure WHERE ancestor_id = @a AND descendant_id = @d', { a: ancestorId, d: descendantId })) !== undefined

/**
 * The tree's lock (a transaction-scoped advisory lock). Placing a new object (created in the same
 * transaction, so no other writer can know it) takes it shared: such placements run in parallel and
 * cannot make a cycle. Every other change of an edge takes it exclusively: it may move a subtree, and
 * a new object's closure rows, copied from its parent's ancestors, must not be read while they change.
 * Under it, a placement checks again what core checked before (no cycle, one parent per section).
 */
const TREE_LOCK = 4_801_001
/** The shared lock, as an expression another statement takes it in (an object's insert, when placements follow). */
export const TREE_LOCK_SHARED = `pg_advisory_xact_lock_shared(${TREE_LOCK})`
export async function lockTree (db: Db, shared: boolean): Promise<void> {
  await db.one(`SELECT ${shared ? TREE_LOCK_SHARED : `pg_advisory_xact_lock(${TREE_LOCK})`}`)
}

/**
 * Places an object created in this transaction (so a leaf no other writer can know) under `parentId`,
 * appended, in one statement: the edge and the pairs from the parent's ancestors, each keyed by its
 * lowest edge priority (a second parent may share ancestors with the first). The caller holds the tree's
 * lock shared (its insert took it). A parent given twice is placed once.
 */
export async function placeNew (db: Db, parentId: number, childId: number): Promise<SavedChildRow> {
  const row = await db.one<{ priority: number }>(`WITH
    edge AS (INSERT INTO tree (parent_id, object_id, priority)
      SELECT @p, @c, COALESCE(MAX(priority), 0) + 1 FROM tree WHERE parent_id = @p
      ON CONFLICT (parent_id, object_id) DO NOTHING RETURNING priority),
    up AS (INSERT INTO closure (ancestor_id, descendant_id, paths, priority)
      SELECT a.ancestor_id, @c, a.paths, edge.priority FROM closure a, edge WHERE a.descendant_id = @p
      ON CONFLICT (ancestor_id, descendant_id) DO UPDATE SET paths = closure.paths + excluded.paths,
        priority = LEAST(COALESCE(closure.priority, excluded.priority), excluded.priority))
    SELECT priority FROM edge`, { p: parentId, c: childId })
  if (row !== undefined) return { child_id: childId, priority: row.priority, created: true }
  return { child_id: childId, priority: present(await positionOf(db, parentId, childId), 'the edge placed before'), created: false }
}

/** After an edge changed: restates the subtree priorities it can change (subtree-order.sqlite.ts `restateOrder`). */
async function restateOrder (db: Db, parentId: number, childId: number, reach: 'child' | 'subtree'): Promise<void> {
  const below = reach === 'child' ? 'c.descendant_id = @c' : 'c.descendant_id IN (SELECT descendant_id FROM closure WHERE ancestor_id = @c)'
  await db.run(`UPDATE closure c SET priority = (SELECT MIN(t.priority) FROM tree t JOIN closure c2
      ON c2.ancestor_id = c.ancestor_id AND c2.descendant_id = t.parent_id WHERE t.object_id = c.descendant_id)
    WHERE c.ancestor_id IN (SELECT ancestor_id FROM closure WHERE descendant_id = @p) AND ${below} AND c.ancestor_id <> c.descendant_id`,
  { p: parentId, c: childId })
}

/**
 * Places an existing `childId` under `parentId` (new edge: appended when no priority) or moves it, as
 * tree.sqlite.ts does, under the tree's lock. Two writers appending under one parent at once may both
 * take the same next priority; the id orders them then.
 */
export async function placeChild (db: Db, parentId: number, childId: number, priority: number | null): Promise<SavedChildRow> {
  await lockTree(db, false)
  const current = await positionOf(db, parentId, childId)
  if (current !== null) {
    if (priority !== null && priority !== current) {
      await db.run('UPDATE tree SET priority = @pr WHERE parent_id = @p AND object_id = @c', { pr: priority, p: parentId, c: childId })
      await restateOrder(db, parentId, childId, 'child')
    }
    return { child_id: childId, priority: priority ?? current, created: false }
  }
  await checkPlacement(db, parentId, childId)
  const next = priority ?? present(await db.one<{ n: number }>('SELECT COALESCE(MAX(priority), 0) + 1 AS n FROM tree WHERE parent_id = @p', { p: parentId }), 'the MAX row').n
  await db.run('INSERT INTO tree (parent_id, object_id, priority) VALUES (@p, @c, @pr)', { p: parentId, c: childId, pr: next })
  if (await isLeaf(db, childId)) {
    // a leaf gains only the pairs from the parent's ancestors to itself, each keyed by its lowest edge priority
    await db.run(`INSERT INTO closure (ancestor_id, descendant_id, paths, priority)
      SELECT ancestor_id, @c, paths, @pr FROM closure WHERE descendant_id = @p ORDER BY ancestor_id
      ON CONFLICT (ancestor_id, descendant_id) DO UPDATE SET paths = closure.paths + excluded.paths,
        priority = LEAST(COALESCE(closure.priority, excluded.priority), excluded.priority)`, { p: parentId, c: childId, pr: next })
    return { child_id: childId, priority: next, created: true }
  }
  await db.run(`INSERT INTO closure (ancestor_id, descendant_id, paths)
    SELECT a.ancestor_id, d.descendant_id, a.paths * d.paths FROM closure a JOIN closure d ON a.descendant_id = @p AND d.ancestor_id = @c
    ORDER BY 1, 2
    ON CONFLICT (ancestor_id, descendant_id) DO UPDATE SET paths = closure.paths + excluded.paths`, { p: parentId, c: childId })
  await restateOrder(db, parentId, childId, 'subtree')
  return { child_id: childId, priority: next, created: true }
}

const isLeaf = async (db: Db, id: number): Promise<boolean> =>
  (await db.one('SELECT 1 FROM closure WHERE ancestor_id = @id AND descendant_id <> @id LIMIT 1', { id })) === undefined

/** What core checked before the write, checked again under the tree's lock: no cycle, a section keeps one parent. */
async function checkPlacement (db: Db, parentId: number, childId: number): Promise<void> {
  const row = await db.one<{ cycle: boolean, section: boolean, placed: boolean }>(`SELECT
      @c::bigint = @p::bigint OR EXISTS (SELECT 1 FROM closure WHERE ancestor_id = @c AND descendant_id = @p) AS cycle,
      EXISTS (SELECT 1 FROM objects WHERE id = @c AND object_type = 'section') AS section,
      EXISTS (SELECT 1 FROM tree WHERE object_id = @c AND parent_id <> @p) AS placed`, { p: parentId, c: childId })
  if (row?.cycle === true || (row?.section === true && row.placed)) throw new PlacementConflict()
}

/** Removes the edge and the paths through it. */
export async function unplaceChild (db: Db, parentId: number, childId: number): Promise<boolean> {
  await lockTree(db, false)
  const removed = await db.run('DELETE FROM tree WHERE parent_id = @p AND object_id = @c', { p: parentId, c: childId }) > 0
  if (!removed) return false
  // the pairs through the edge: those it was the last path of go, the others lose its paths (disjoint, and
  // neither statement changes the rows that compute them, which would need a cycle)
  const pairs = `(SELECT a.ancestor_id AS a, d.descendant_id AS d, a.paths * d.paths AS n FROM closure a JOIN closure d
    ON a.descendant_id = @p AND d.ancestor_id = @c ORDER BY 1, 2) s`
  await db.run(`DELETE FROM closure x USING ${pairs} WHERE x.ancestor_id = s.a AND x.descendant_id = s.d AND x.paths <= s.n`, { p: parentId, c: childId })
  await db.run(`UPDATE closure x SET paths = x.paths - s.n FROM ${pairs} WHERE x.ancestor_id = s.a AND x.descendant_id = s.d`, { p: parentId, c: childId })
  await restateOrder(db, parentId, childId, 'subtree')
  return true
}

export async function registerNode (db: Db, id: number): Promise<void> {
  await db.run('INSERT INTO closure (ancestor_id, descendant_id, paths) VALUES (@id, @id, 1)', { id })
}

export function treeReads (db: Db): TreeReads {
  return {
    children: (parentId, scope, q) => listChildren(db, parentId, scope, q),
    descendants: (nodeId, order, q) => listDescendants(db, nodeId, order, q),
    parents: (id) => parentsOf(db, id),
    ancestors: (id) => ancestorsOf(db, id),
    childCounts: (ids, vis) => childCounts(db, ids, vis),
    position: (p, c) => positionOf(db, p, c),
    hasChildren: (p) => hasChildren(db, p),
    isAncestor: (a, d) => isAncestor(db, a, d),
  }
}
