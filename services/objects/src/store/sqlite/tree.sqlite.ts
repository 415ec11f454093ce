import { present } from '@content/platform'
import type { ChildCounts, ChildScope, IdPage, ListQuery, TreeReads } from '../../core/ports.js'
import type { SavedChildRow, Visibility } from '../../core/types.js'
import { withDrafts } from '../../core/visibility.js'
import { SCOPE, countChildren, countChildrenOf, countDescendants } from './kept-counts.sqlite.js'
import { restateOrder } from './subtree-order.sqlite.js'
import { VISIBLE, filterParams, filtered, idsJson, visibilityParams, visibleSql, type Statements } from './rows.sqlite.js'
import { answer } from './transactions.sqlite.js'

function listParams (q: ListQuery) {
  return { ...visibilityParams(q.visibility), ...filterParams(q.filter), exclude: q.exclude ?? null, limit: q.limit, offset: q.offset }
}

/** Rows in an order of columns, the whole of a list's order (each ends in the id, so it is strict). */
interface Ordered {
  /** the id column */
  id: string
  /** the rows (FROM … WHERE …) */
  from: string
  order: string[]
}

interface PageSql extends Ordered {
  /** the kept tally (countChildren, countDescendants) for an unfiltered list; null to count the rows */
  tally: string | null
  /** the same rows read from an index alone, for when the tally says the reader sees every row */
  walk: Ordered | null
}

const pageOf = (rows: Ordered, backwards: boolean) =>
  `SELECT ${rows.id} AS id ${rows.from} ORDER BY ${rows.order.map((c) => (backwards ? `${c} DESC` : c)).join(', ')} LIMIT @limit OFFSET @offset`

/**
 * A page of ids and the total. An unfiltered list takes its total from the kept counts, and when they
 * say the reader sees every row, `OFFSET` needs no visibility check and the page walks the index alone.
 * With the total known first, a page in the second half is read from the end backwards: `OFFSET` steps
 * over every row it skips, so the last page of a large section costs what the first does.
 */
function page (st: Statements, p: ReturnType<typeof listParams> & { node: number }, q: PageSql): IdPage {
  const kept = q.tally === null ? null : present(st.one<{ n: number, rows: number }>(q.tally, p), 'the count row')
  const rows = kept !== null && q.walk !== null && kept.n === kept.rows ? q.walk : q
  if (kept === null) {
    const ids = st.all<{ id: number }>(pageOf(rows, false), p).map((r) => r.id)
    return { ids, total: present(st.one<{ n: number }>(`SELECT COUNT(*) AS n ${q.from}`, p), 'the COUNT row').n }
  }
  const after = kept.n - p.offset - p.limit
  if (after >= p.offset) return { ids: st.all<{ id: number }>(pageOf(rows, false), p).map((r) => r.id), total: kept.n }
  const fromEnd = { ...p, offset: Math.max(after, 0), limit: Math.max(Math.min(p.limit, kept.n - p.offset), 0) }
  return { ids: st.all<{ id: number }>(pageOf(rows, true), fromEnd).map((r) => r.id).reverse(), total: kept.n }
}

export function listChildren (st: Statements, parentId: number, scope: ChildScope, q: ListQuery): IdPage {
  const p = { ...listParams(q), node: parentId }
  // siblings leave one child out: their rows are counted
  // the kept counts are of published sets: a writer's drafts are counted row by row
  const unfiltered = p.types === null && p.query === null && p.exclude === null && !withDrafts(q.visibility)
  return page(st, p, {
    id: 't.object_id',
    from: `FROM tree t JOIN objects o ON o.id = t.object_id
      WHERE t.parent_id = @node ${SCOPE[scope]} AND (@exclude IS NULL OR t.object_id <> @exclude) AND ${visibleSql(q.visibility)} AND ${filtered(q.filter)}`,
    order: ['t.priority', 't.object_id'],
    tally: unfiltered ? countChildren(scope, VISIBLE) : null,
    walk: scope === 'all' ? { id: 'object_id', from: 'FROM tree WHERE parent_id = @node', order: ['priority', 'object_id'] } : null,
  })
}

export function listDescendants (st: Statements, nodeId: number, order: 'tree' | 'id', q: ListQuery): IdPage {
  const p = { ...listParams(q), node: nodeId }
  const columns = (prefix: string) => (order === 'id' ? [`${prefix}descendant_id`] : [`${prefix}priority`, `${prefix}descendant_id`])
  return page(st, p, {
    id: 'c.descendant_id',
    from: `FROM closure c JOIN objects o ON o.id = c.descendant_id
      WHERE c.ancestor_id = @node AND c.descendant_id <> @node AND ${visibleSql(q.visibility)} AND ${filtered(q.filter)}`,
    order: columns('c.'),
    tally: p.types === null && p.query === null && !withDrafts(q.visibility) ? countDescendants(VISIBLE) : null,
    walk: { id: 'descendant_id', from: 'FROM closure WHERE ancestor_id = @node AND descendant_id <> @node', order: columns('') },
  })
}

export function parentsOf (st: Statements, objectId: number): number[] {
  return st.all<{ id: number }>('SELECT parent_id AS id FROM tree WHERE object_id = @id ORDER BY seq', { id: objectId }).map((r) => r.id)
}

const FIRST_PARENT = 'SELECT parent_id FROM tree WHERE object_id = %s ORDER BY seq LIMIT 1'

export function ancestorsOf (st: Statements, objectId: number): number[] {
  const sql = `WITH RECURSIVE up(id, depth) AS (
      SELECT (${FIRST_PARENT.replace('%s', '@id')}), 1
      UNION ALL
      SELECT (${FIRST_PARENT.replace('%s', 'up.id')}), depth + 1 FROM up WHERE up.id IS NOT NULL AND depth < 256
    ) SELECT id FROM up WHERE id IS NOT NULL ORDER BY depth DESC`
  return st.all<{ id: number }>(sql, { id: objectId }).map((r) => r.id)
}

export function childCounts (st: Statements, parentIds: number[], vis: Visibility): Map<number, ChildCounts> {
  const out = new Map<number, ChildCounts>()
  if (parentIds.length === 0) return out
  const rows = st.all<{ parent_id: number, sections: number, contents: number }>(withDrafts(vis) ? countChildrenByRow(visibleSql(vis)) : countChildrenOf(VISIBLE),
    { ids: idsJson(parentIds), ...visibilityParams(vis) })
  for (const r of rows) out.set(r.parent_id, { sections: r.sections, contents: r.contents })
  return out
}

/** countChildrenOf without the kept counts (they are of published sets): for a visibility with drafts. */
const countChildrenByRow = (visible: string) => `SELECT t.parent_id, SUM(o.object_type = 'section') AS sections, SUM(o.object_type <> 'section') AS contents
  FROM tree t JOIN objects o ON o.id = t.object_id WHERE t.parent_id IN (SELECT value FROM json_each(@ids)) AND ${visible} GROUP BY t.parent_id`

export function positionOf (st: Statements, parentId: number, childId: number): number | null {
  return st.one<{ priority: number }>('SELECT priority FROM tree WHERE parent_id = @p AND object_id = @c', { p: parentId, c: childId })?.priority ?? null
}

export const hasChildren = (st: Statements, parentId: number): boolean =>
  st.one('SELECT 1 FROM tree WHERE parent_id = @p LIMIT 1', { p: parentId }) !== undefined

const isLeaf = (st: Statements, id: number): boolean =>
  st.one('SELECT 1 FROM closure WHERE ancestor_id = @id AND descendant_id <> @id LIMIT 1', { id }) === undefined

export function isAncestor (st: Statements, ancestorId: number, descendantId: number): boolean {
  return st.one('SELECT 1 FROM closure WHERE ancestor_id = @a AND descendant_id = @d', { a: ancestorId, d: descendantId }) !== undefined
}

/** Places `childId` under `parentId` (new edge: appended when no priority) or moves it. Call inside a transaction. */
export function placeChild (st: Statements, parentId: number, childId: number, priority: number | null): SavedChildRow {
  const current = positionOf(st, parentId, childId)
  if (current !== null) {
    if (priority !== null && priority !== current) {
      st.run('UPDATE tree SET priority = @pr WHERE parent_id = @p AND object_id = @c', { pr: priority, p: parentId, c: childId })
      restateOrder(st, parentId, childId, 'child')
    }
    return { child_id: childId, priority: priority ?? current, created: false }
  }
  const next = priority ?? present(st.one<{ n: number }>('SELECT COALESCE(MAX(priority), 0) + 1 AS n FROM tree WHERE parent_id = @p', { p: parentId }), 'the MAX row').n
  st.run('INSERT INTO tree (parent_id, object_id, priority) VALUES (@p, @c, @pr)', { p: parentId, c: childId, pr: next })
  if (isLeaf(st, childId)) {
    // a leaf (every new object) gains only the pairs from the parent and its ancestors to itself, and
    // each pair's key is its lowest edge priority under that ancestor: this edge's, or the one it had
    st.run(`INSERT INTO closure (ancestor_id, descendant_id, paths, priority)
      SELECT ancestor_id, @c, paths, @pr FROM closure WHERE descendant_id = @p
      ON CONFLICT (ancestor_id, descendant_id) DO UPDATE SET paths = paths + excluded.paths, priority = MIN(COALESCE(priority, excluded.priority), excluded.priority)`,
    { p: parentId, c: childId, pr: next })
    return { child_id: childId, priority: next, created: true }
  }
  st.run(`INSERT INTO closure (ancestor_id, descendant_id, paths)
    SELECT a.ancestor_id, d.descendant_id, a.paths * d.paths FROM closure a JOIN closure d
    ON a.descendant_id = @p AND d.ancestor_id = @c WHERE true
    ON CONFLICT (ancestor_id, descendant_id) DO UPDATE SET paths = paths + excluded.paths`, { p: parentId, c: childId })
  restateOrder(st, parentId, childId, 'subtree')
  return { child_id: childId, priority: next, created: true }
}

/** Removes the edge and the paths through it. Call inside a transaction. */
export function unplaceChild (st: Statements, parentId: number, childId: number): boolean {
  const removed = st.run('DELETE FROM tree WHERE parent_id = @p AND object_id = @c', { p: parentId, c: childId }).changes > 0
  if (!removed) return false
  const pairs = st.all<{ a: number, d: number, n: number }>(
    `SELECT a.ancestor_id AS a, d.descendant_id AS d, a.paths * d.paths AS n FROM closure a JOIN closure d
     ON a.descendant_id = @p AND d.ancestor_id = @c`, { p: parentId, c: childId })
  for (const pair of pairs) {
    st.run('UPDATE closure SET paths = paths - @n WHERE ancestor_id = @a AND descendant_id = @d', pair)
    st.run('DELETE FROM closure WHERE ancestor_id = @a AND descendant_id = @d AND paths <= 0', pair)
  }
  restateOrder(st, parentId, childId, 'subtree')
  return true
}

export function registerNode (st: Statements, id: number): void {
  st.run('INSERT INTO closure (ancestor_id, descendant_id, paths) VALUES (@id, @id, 1)', { id })
}

export function treePort (st: Statements): TreeReads {
  return {
    children: (parentId, scope, q) => answer(() => listChildren(st, parentId, scope, q)),
    descendants: (nodeId, order, q) => answer(() => listDescendants(st, nodeId, order, q)),
    parents: (id) => answer(() => parentsOf(st, id)),
    ancestors: (id) => answer(() => ancestorsOf(st, id)),
    childCounts: (ids, vis) => answer(() => childCounts(st, ids, vis)),
    position: (p, c) => answer(() => positionOf(st, p, c)),
    hasChildren: (p) => answer(() => hasChildren(st, p)),
    isAncestor: (a, d) => answer(() => isAncestor(st, a, d)),
  }
}
