import type Database from 'better-sqlite3'
import type { ChildScope } from '../../core/ports.js'
import { CHILDREN, DESCENDANTS, KEPT, unrestricted, type Kept } from '../sql-kept-counts.js'
import { ensureTagCounts, tagCountsInBulk } from './tag-counts.sqlite.js'

/**
 * Children and descendants counted as they are placed, so that a list's `total` and the `children`
 * summaries of records do not count a large section's rows on every read. An object without a
 * publication window and without read groups is visible exactly when its status is: those are counted
 * per (node, status, section or not) in `<kind>_counts`. The others (`<kind>_restricted`, usually few)
 * are checked against the reader's visibility. Triggers keep both in step with every write of the edge
 * table and of the four columns that decide, inside the write's transaction.
 */
const tables = (k: Kept) => `
CREATE TABLE ${k.kind}_counts (
  node_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  status TEXT NOT NULL,
  section INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (node_id, status, section)
) WITHOUT ROWID;
CREATE TABLE ${k.kind}_restricted (
  node_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  object_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  PRIMARY KEY (node_id, object_id)
) WITHOUT ROWID;`

interface Rows { node: string, object: string, from: string, where: string }

/** Adds edges (node → object, the object's row as `o`) to the counts. */
const add = (k: Kept, e: Rows, o: string) => `
  INSERT INTO ${k.kind}_counts (node_id, status, section, n)
    SELECT ${e.node}, ${o}.status, ${o}.object_type = 'section', COUNT(*) FROM ${e.from}
    WHERE ${e.where} AND ${unrestricted(o)} GROUP BY 1, 2, 3
    ON CONFLICT (node_id, status, section) DO UPDATE SET n = n + excluded.n;
  INSERT INTO ${k.kind}_restricted (node_id, object_id)
    SELECT ${e.node}, ${e.object} FROM ${e.from} WHERE ${e.where} AND NOT ${unrestricted(o)};`

/** Adds every edge of the table that `where` (on `e`) admits, as a store's first fill or a bulk import. */
const addEdges = (k: Kept, where: string) =>
  add(k, { node: `e.${k.node}`, object: `e.${k.object}`, from: `${k.edges} e JOIN objects o ON o.id = e.${k.object}`, where }, 'o')

const nodesOf = (k: Kept, id: string) => `SELECT e.${k.node} FROM ${k.edges} e WHERE e.${k.object} = ${id} AND ${k.counted('e')}`

const addTrigger = (k: Kept) => `CREATE TRIGGER ${k.kind}_counts_add AFTER INSERT ON ${k.edges} WHEN ${k.counted('new')} BEGIN
  ${add(k, { node: `new.${k.node}`, object: `new.${k.object}`, from: 'objects o', where: `o.id = new.${k.object}` }, 'o')}
END;`

const triggers = (k: Kept) => `
${addTrigger(k)}
CREATE TRIGGER ${k.kind}_counts_drop AFTER DELETE ON ${k.edges} WHEN ${k.counted('old')} BEGIN
  UPDATE ${k.kind}_counts SET n = n - 1 WHERE node_id = old.${k.node} AND (status, section) =
    (SELECT o.status, o.object_type = 'section' FROM objects o WHERE o.id = old.${k.object} AND ${unrestricted('o')});
  DELETE FROM ${k.kind}_restricted WHERE node_id = old.${k.node} AND object_id = old.${k.object};
END;
CREATE TRIGGER ${k.kind}_counts_restate AFTER UPDATE OF status, start_date, end_date, read_groups ON objects
WHEN old.status IS NOT new.status OR ${unrestricted('old')} IS NOT ${unrestricted('new')} BEGIN
  UPDATE ${k.kind}_counts SET n = n - 1 WHERE ${unrestricted('old')} AND status = old.status
    AND section = (old.object_type = 'section') AND node_id IN (${nodesOf(k, 'old.id')});
  DELETE FROM ${k.kind}_restricted WHERE object_id = old.id AND node_id IN (${nodesOf(k, 'old.id')});
  ${add(k, { node: `e.${k.node}`, object: 'new.id', from: `${k.edges} e`, where: `e.${k.object} = new.id AND ${k.counted('e')}` }, 'new')}
END;`

const PARTS = KEPT.flatMap((k) => [`${k.kind}_counts`, `${k.kind}_restricted`, `${k.kind}_counts_add`, `${k.kind}_counts_drop`, `${k.kind}_counts_restate`])

/**
 * Creates the counts and their triggers when a part is missing (a store from before them) and fills them
 * once, under the write lock, so that two processes opening the same old file do not both fill them.
 */
export function ensureKeptCounts (db: Database.Database): void {
  db.transaction(() => {
    ensureTagCounts(db)
    const present = db.prepare(`SELECT COUNT(*) AS n FROM sqlite_master WHERE name IN (${PARTS.map(() => '?').join(', ')})`).get(...PARTS) as { n: number }
    if (present.n === PARTS.length) return
    for (const k of KEPT) {
      db.exec(`DROP TRIGGER IF EXISTS ${k.kind}_counts_add; DROP TRIGGER IF EXISTS ${k.kind}_counts_drop; DROP TRIGGER IF EXISTS ${k.kind}_counts_restate;
        DROP TABLE IF EXISTS ${k.kind}_counts; DROP TABLE IF EXISTS ${k.kind}_restricted;`)
      db.exec(tables(k) + triggers(k))
      db.exec(addEdges(k, k.counted('e')))
    }
  }).immediate()
}

/**
 * The kept counts of a bulk import (inside its transaction): `off` drops the insert triggers, and `on`
 * counts the import's new edges (and tag rows) in one statement per kind, then brings the triggers back.
 * Every edge a fixtures import inserts leads to an object it inserted, and ids only grow, so the new edges
 * are those to the least new id and above. DDL is transactional: a rollback brings the triggers back.
 */
export const keptCountsInBulk = {
  off (db: Database.Database): void {
    for (const k of KEPT) db.exec(`DROP TRIGGER ${k.kind}_counts_add`)
    tagCountsInBulk.before(db)
  },
  on (db: Database.Database, least: number | null): void {
    if (least !== null) {
      for (const k of KEPT) db.exec(addEdges(k, `e.${k.object} >= ${least} AND ${k.counted('e')}`))
    }
    for (const k of KEPT) db.exec(addTrigger(k))
    tagCountsInBulk.after(db, least)
  },
}

/** The objects of a scope, as a condition on their row `o`, and on a row of the counts. */
export const SCOPE: Record<ChildScope, string> = { all: '', sections: "AND o.object_type = 'section'", contents: "AND o.object_type <> 'section'" }
const COUNTED: Record<ChildScope, string> = { all: '', sections: 'AND section = 1', contents: 'AND section = 0' }

/**
 * SQL for `n`, the number of `@node`'s children or descendants in `scope` that a visibility admits
 * (`visible` checks `o`), and `rows`, their number whoever reads: equal when the reader sees them all.
 */
const countOf = (k: Kept, scope: ChildScope, visible: string) => `SELECT
  COALESCE((SELECT SUM(n) FROM ${k.kind}_counts WHERE node_id = @node ${COUNTED[scope]}
    AND status IN (SELECT value FROM json_each(@statuses))), 0)
  + (SELECT COUNT(*) FROM ${k.kind}_restricted r JOIN objects o ON o.id = r.object_id
    WHERE r.node_id = @node ${SCOPE[scope]} AND ${visible}) AS n,
  COALESCE((SELECT SUM(n) FROM ${k.kind}_counts WHERE node_id = @node ${COUNTED[scope]}), 0)
  + (SELECT COUNT(*) FROM ${k.kind}_restricted r JOIN objects o ON o.id = r.object_id
    WHERE r.node_id = @node ${SCOPE[scope]}) AS rows`

export const countChildren = (scope: ChildScope, visible: string) => countOf(CHILDREN, scope, visible)
export const countDescendants = (visible: string) => countOf(DESCENDANTS, 'all', visible)

/** SQL for (parent_id, sections, contents) of every parent in the JSON array `@ids`, as countChildren counts. */
export const countChildrenOf = (visible: string) => `SELECT node_id AS parent_id, SUM(section * n) AS sections, SUM((1 - section) * n) AS contents FROM (
    SELECT node_id, section, n FROM child_counts
    WHERE node_id IN (SELECT value FROM json_each(@ids)) AND status IN (SELECT value FROM json_each(@statuses))
    UNION ALL
    SELECT r.node_id, o.object_type = 'section', 1 FROM child_restricted r JOIN objects o ON o.id = r.object_id
    WHERE r.node_id IN (SELECT value FROM json_each(@ids)) AND ${visible}
  ) GROUP BY node_id HAVING SUM(n) > 0`
