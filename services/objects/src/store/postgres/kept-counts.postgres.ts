import type { ChildScope } from '../../core/ports.js'
import { PUBLICATION_ID } from '../../core/publication.js'
import { CHILDREN, DESCENDANTS, KEPT, onTree, unrestricted, type Kept } from '../sql-kept-counts.js'

/**
 * Children, descendants and each tag's objects on the publication tree, counted as they are placed and
 * tagged, as kept-counts.sqlite.ts and tag-counts.sqlite.ts keep them: objects without a publication
 * window and without read groups are counted per (node, status, section or not); the others are listed
 * in `<kind>_restricted` and checked against the reader. Statement-level triggers with transition tables
 * keep them in the write's transaction, one statement per kind whatever the number of edges written. A
 * pair already present whose paths an upsert adds to is no new edge: an INSERT's transition table holds
 * only the rows it inserted.
 *
 * A write does not update a count row: it inserts a signed delta (`<kind>_count_deltas`), which takes no
 * lock another write waits for. Updated in place, the publication's count row was locked by every create
 * from its placing to its commit, and creates ran one at a time (about 60 a second at 10 connections on
 * the loaded build machine). A read sums the row and the deltas in one statement (one snapshot); `foldCounts`
 * moves the deltas into the rows every second, so there are few to sum.
 */
const PUB = String(PUBLICATION_ID)

const tables = (k: Kept) => `
CREATE TABLE ${k.kind}_counts (
  node_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  status text NOT NULL,
  section boolean NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (node_id, status, section)
);
CREATE TABLE ${k.kind}_restricted (
  node_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  object_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  PRIMARY KEY (node_id, object_id)
);
CREATE INDEX ${k.kind}_restricted_object ON ${k.kind}_restricted(object_id);
CREATE TABLE ${k.kind}_count_deltas (
  node_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  status text NOT NULL,
  section boolean NOT NULL,
  n bigint NOT NULL
);
CREATE INDEX ${k.kind}_count_deltas_node ON ${k.kind}_count_deltas(node_id);`

/** Adds the edges `e` of `from` (joined to their objects `o`) that `where` admits. */
const addEdges = (k: Kept, from: string, where: string) => `
  INSERT INTO ${k.kind}_count_deltas (node_id, status, section, n)
    SELECT e.${k.node}, o.status, o.object_type = 'section', COUNT(*) FROM ${from} e JOIN objects o ON o.id = e.${k.object}
    WHERE ${where} AND ${unrestricted('o')} GROUP BY 1, 2, 3;
  INSERT INTO ${k.kind}_restricted (node_id, object_id)
    SELECT e.${k.node}, e.${k.object} FROM ${from} e JOIN objects o ON o.id = e.${k.object}
    WHERE ${where} AND NOT ${unrestricted('o')} ORDER BY 1, 2 ON CONFLICT DO NOTHING;`

const edgeTriggers = (k: Kept) => `
CREATE FUNCTION ${k.kind}_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${addEdges(k, 'added', k.counted('e'))}
  RETURN NULL;
END $$;
CREATE TRIGGER ${k.kind}_counts_add AFTER INSERT ON ${k.edges} REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION ${k.kind}_counts_add();
CREATE FUNCTION ${k.kind}_counts_drop() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ${k.kind}_count_deltas (node_id, status, section, n)
    SELECT e.${k.node}, o.status, o.object_type = 'section', -COUNT(*) FROM removed e JOIN objects o ON o.id = e.${k.object}
    WHERE ${k.counted('e')} AND ${unrestricted('o')} GROUP BY 1, 2, 3;
  DELETE FROM ${k.kind}_restricted r USING removed e WHERE r.node_id = e.${k.node} AND r.object_id = e.${k.object};
  RETURN NULL;
END $$;
CREATE TRIGGER ${k.kind}_counts_drop AFTER DELETE ON ${k.edges} REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION ${k.kind}_counts_drop();`

/** An object's row changed in what decides: out of the counts as it was, into them as it is. */
const restate = (k: Kept) => `
  IF ${unrestricted('OLD')} THEN
    INSERT INTO ${k.kind}_count_deltas (node_id, status, section, n)
      SELECT e.${k.node}, OLD.status, OLD.object_type = 'section', -1 FROM ${k.edges} e WHERE e.${k.object} = OLD.id AND ${k.counted('e')};
  ELSE
    DELETE FROM ${k.kind}_restricted WHERE object_id = OLD.id;
  END IF;
  IF ${unrestricted('NEW')} THEN
    INSERT INTO ${k.kind}_count_deltas (node_id, status, section, n)
      SELECT e.${k.node}, NEW.status, NEW.object_type = 'section', 1 FROM ${k.edges} e WHERE e.${k.object} = NEW.id AND ${k.counted('e')};
  ELSE
    INSERT INTO ${k.kind}_restricted (node_id, object_id)
      SELECT e.${k.node}, NEW.id FROM ${k.edges} e WHERE e.${k.object} = NEW.id AND ${k.counted('e')} ORDER BY 1
      ON CONFLICT DO NOTHING;
  END IF;`

/** Adds the tag rows `ot` (of objects `o`) that `where` admits. */
const addTagged = (from: string, where: string) => `
  INSERT INTO tag_count_deltas (tag_id, status, n)
    SELECT ot.tag_id, o.status, COUNT(*) FROM ${from} WHERE ${where} AND ${unrestricted('o')} GROUP BY 1, 2;
  INSERT INTO tag_restricted (tag_id, object_id)
    SELECT ot.tag_id, ot.object_id FROM ${from} WHERE ${where} AND NOT ${unrestricted('o')} ORDER BY 1, 2 ON CONFLICT DO NOTHING;`

const dropTagged = (from: string, where: string, restricted: string) => `
  INSERT INTO tag_count_deltas (tag_id, status, n)
    SELECT ot.tag_id, o.status, -COUNT(*) FROM ${from} WHERE ${where} AND ${unrestricted('o')} GROUP BY 1, 2;
  ${restricted}`

const TAG_COUNTS = `
CREATE TABLE tag_counts (
  tag_id integer NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  status text NOT NULL,
  n bigint NOT NULL,
  PRIMARY KEY (tag_id, status)
);
CREATE TABLE tag_restricted (
  tag_id integer NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  object_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  PRIMARY KEY (tag_id, object_id)
);
CREATE INDEX tag_restricted_object ON tag_restricted(object_id);
CREATE TABLE tag_count_deltas (
  tag_id integer NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  status text NOT NULL,
  n bigint NOT NULL
);
CREATE INDEX tag_count_deltas_tag ON tag_count_deltas(tag_id);
CREATE FUNCTION tag_counts_tagged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${addTagged('added ot JOIN objects o ON o.id = ot.object_id', onTree('ot.object_id'))}
  RETURN NULL;
END $$;
CREATE TRIGGER tag_counts_tagged AFTER INSERT ON object_tags REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION tag_counts_tagged();
CREATE FUNCTION tag_counts_untagged() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${dropTagged('removed ot JOIN objects o ON o.id = ot.object_id', onTree('ot.object_id'),
    'DELETE FROM tag_restricted r USING removed ot WHERE r.tag_id = ot.tag_id AND r.object_id = ot.object_id;')}
  RETURN NULL;
END $$;
CREATE TRIGGER tag_counts_untagged AFTER DELETE ON object_tags REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION tag_counts_untagged();
CREATE FUNCTION tag_counts_placed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${addTagged('added c JOIN object_tags ot ON ot.object_id = c.descendant_id JOIN objects o ON o.id = c.descendant_id',
    `c.ancestor_id = ${PUB} AND c.descendant_id <> ${PUB}`)}
  RETURN NULL;
END $$;
CREATE TRIGGER tag_counts_placed AFTER INSERT ON closure REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION tag_counts_placed();
CREATE FUNCTION tag_counts_unplaced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${dropTagged('removed c JOIN object_tags ot ON ot.object_id = c.descendant_id JOIN objects o ON o.id = c.descendant_id',
    `c.ancestor_id = ${PUB} AND c.descendant_id <> ${PUB}`,
    `DELETE FROM tag_restricted r USING removed c WHERE c.ancestor_id = ${PUB} AND r.object_id = c.descendant_id;`)}
  RETURN NULL;
END $$;
CREATE TRIGGER tag_counts_unplaced AFTER DELETE ON closure REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION tag_counts_unplaced();`

const RESTATE = `
CREATE FUNCTION kept_counts_restate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${KEPT.map(restate).join('\n')}
  IF ${onTree('NEW.id')} THEN
    IF ${unrestricted('OLD')} THEN
      INSERT INTO tag_count_deltas (tag_id, status, n) SELECT tag_id, OLD.status, -1 FROM object_tags WHERE object_id = OLD.id;
    ELSE
      DELETE FROM tag_restricted WHERE object_id = OLD.id;
    END IF;
    ${addTagged('object_tags ot JOIN objects o ON o.id = ot.object_id', 'ot.object_id = NEW.id')}
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER kept_counts_restate AFTER UPDATE OF status, start_date, end_date, read_groups ON objects FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR ${unrestricted('OLD')} IS DISTINCT FROM ${unrestricted('NEW')})
  EXECUTE FUNCTION kept_counts_restate();`

/** The tables, functions and triggers of the kept counts (part of migration 1). */
export const KEPT_COUNTS = [...KEPT.map((k) => tables(k) + edgeTriggers(k)), TAG_COUNTS, RESTATE].join('\n')

/** The objects of a scope, as a condition on their row `o`, and on a row of the counts. */
export const SCOPE: Record<ChildScope, string> = { all: '', sections: "AND o.object_type = 'section'", contents: "AND o.object_type <> 'section'" }
const COUNTED: Record<ChildScope, string> = { all: '', sections: 'AND section', contents: 'AND NOT section' }

/** `n` (what a visibility admits, `visible` on `o`) and `rows` (every row) of `@node`'s children or descendants in `scope`. */
const countOf = (k: Kept, scope: ChildScope, visible: string) => `SELECT
  ${kept(k, `node_id = @node ${COUNTED[scope]} AND status = ANY(@statuses::text[])`)}
  + (SELECT COUNT(*) FROM ${k.kind}_restricted r JOIN objects o ON o.id = r.object_id WHERE r.node_id = @node ${SCOPE[scope]} AND ${visible}) AS n,
  ${kept(k, `node_id = @node ${COUNTED[scope]}`)}
  + (SELECT COUNT(*) FROM ${k.kind}_restricted r JOIN objects o ON o.id = r.object_id WHERE r.node_id = @node ${SCOPE[scope]}) AS rows`

/** The kept count of the rows (and deltas) `where` selects. */
const kept = (k: Kept, where: string) =>
  `(COALESCE((SELECT SUM(n) FROM ${k.kind}_counts WHERE ${where}), 0) + COALESCE((SELECT SUM(n) FROM ${k.kind}_count_deltas WHERE ${where}), 0))`

export const countChildren = (scope: ChildScope, visible: string): string => countOf(CHILDREN, scope, visible)
export const countDescendants = (visible: string): string => countOf(DESCENDANTS, 'all', visible)

/** (parent_id, sections, contents) of every parent in `@ids`, as countChildren counts. */
export const countChildrenOf = (visible: string): string => `SELECT node_id AS parent_id,
    SUM(CASE WHEN section THEN n ELSE 0 END) AS sections, SUM(CASE WHEN section THEN 0 ELSE n END) AS contents FROM (
    SELECT node_id, section, n FROM child_counts WHERE node_id = ANY(@ids::bigint[]) AND status = ANY(@statuses::text[])
    UNION ALL
    SELECT node_id, section, n FROM child_count_deltas WHERE node_id = ANY(@ids::bigint[]) AND status = ANY(@statuses::text[])
    UNION ALL
    SELECT r.node_id, o.object_type = 'section', 1 FROM child_restricted r JOIN objects o ON o.id = r.object_id
    WHERE r.node_id = ANY(@ids::bigint[]) AND ${visible}
  ) k GROUP BY node_id HAVING SUM(n) > 0`

/** `n`: the publication's descendants tagged `tag` (an SQL value) that the visibility (`visible` on `o`) admits. */
export const countTagged = (tag: string, visible: string): string => `SELECT
  COALESCE((SELECT SUM(n) FROM tag_counts WHERE tag_id = (SELECT id FROM tags WHERE name = ${tag}) AND status = ANY(@statuses::text[])), 0)
  + COALESCE((SELECT SUM(n) FROM tag_count_deltas WHERE tag_id = (SELECT id FROM tags WHERE name = ${tag}) AND status = ANY(@statuses::text[])), 0)
  + (SELECT COUNT(*) FROM tag_restricted r JOIN objects o ON o.id = r.object_id
    WHERE r.tag_id = (SELECT id FROM tags WHERE name = ${tag}) AND ${visible}) AS n`

/**
 * Moves the deltas into the count rows, one statement per kind; safe to run on several processes at
 * once (a delta another run deleted first is not moved twice: its DELETE waits for that run, then skips it).
 */
export const FOLD_COUNTS = [
  ...KEPT.map((k) => `WITH moved AS (DELETE FROM ${k.kind}_count_deltas RETURNING node_id, status, section, n)
    INSERT INTO ${k.kind}_counts (node_id, status, section, n)
    SELECT node_id, status, section, SUM(n) FROM moved GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (node_id, status, section) DO UPDATE SET n = ${k.kind}_counts.n + excluded.n`),
  `WITH moved AS (DELETE FROM tag_count_deltas RETURNING tag_id, status, n)
    INSERT INTO tag_counts (tag_id, status, n) SELECT tag_id, status, SUM(n) FROM moved GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (tag_id, status) DO UPDATE SET n = tag_counts.n + excluded.n`,
]
