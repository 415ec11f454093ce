import type Database from 'better-sqlite3'
import { PUBLICATION_ID } from '../../core/publication.js'
import { onTree, unrestricted } from '../sql-kept-counts.js'
import { VISIBLE } from './rows.sqlite.js'

/**
 * Each tag's objects on the publication tree counted as they are tagged and placed, so that the total
 * of `filter[tags]=…` over the whole store does not count the tag's rows on every read (most of a page's
 * time for a tag of thousands in a million-object store: loadtest/README.md). As kept-counts.sqlite.ts
 * does for children: objects without a window and without read groups are counted per (tag, status),
 * the others are listed per tag and checked against the reader. Triggers follow the tag rows, the
 * publication's closure rows (an object joining or leaving the tree) and the four columns that decide,
 * inside the write's transaction.
 */
const PARTS = ['tag_counts', 'tag_restricted', 'tag_counts_tagged', 'tag_counts_untagged', 'tag_counts_placed', 'tag_counts_unplaced', 'tag_counts_restate']

const TABLES = `
CREATE TABLE tag_counts (
  tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  status TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (tag_id, status)
) WITHOUT ROWID;
CREATE TABLE tag_restricted (
  tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  object_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  PRIMARY KEY (tag_id, object_id)
) WITHOUT ROWID;
CREATE INDEX tag_restricted_object ON tag_restricted(object_id);`

/** Adds the tag rows `ot` joined to their objects `o` that `where` admits. */
const add = (where: string) => `
  INSERT INTO tag_counts (tag_id, status, n)
    SELECT ot.tag_id, o.status, COUNT(*) FROM object_tags ot JOIN objects o ON o.id = ot.object_id
    WHERE ${where} AND ${unrestricted('o')} GROUP BY 1, 2
    ON CONFLICT (tag_id, status) DO UPDATE SET n = n + excluded.n;
  INSERT INTO tag_restricted (tag_id, object_id)
    SELECT ot.tag_id, ot.object_id FROM object_tags ot JOIN objects o ON o.id = ot.object_id
    WHERE ${where} AND NOT ${unrestricted('o')};`

/** Takes object `id`, as its row is now, out of the counts of the tags `tags` selects. */
const drop = (id: string, tags: string) => `
  UPDATE tag_counts SET n = n - 1 WHERE tag_id IN (${tags})
    AND status = (SELECT o.status FROM objects o WHERE o.id = ${id} AND ${unrestricted('o')});
  DELETE FROM tag_restricted WHERE object_id = ${id} AND tag_id IN (${tags});`

const tagsOf = (id: string) => `SELECT tag_id FROM object_tags WHERE object_id = ${id}`

/** The triggers an insert adds through, dropped while a bulk import inserts (countedInBulk). */
const INSERT_TRIGGERS = `
CREATE TRIGGER tag_counts_tagged AFTER INSERT ON object_tags WHEN ${onTree('new.object_id')} BEGIN
  ${add('ot.object_id = new.object_id AND ot.tag_id = new.tag_id')}
END;
CREATE TRIGGER tag_counts_placed AFTER INSERT ON closure WHEN new.ancestor_id = ${PUBLICATION_ID} AND new.descendant_id <> ${PUBLICATION_ID} BEGIN
  ${add('ot.object_id = new.descendant_id')}
END;`

// deleteObject takes an object off the tree before its row goes: the cascade then finds it off the tree
const TRIGGERS = `${INSERT_TRIGGERS}
CREATE TRIGGER tag_counts_untagged AFTER DELETE ON object_tags WHEN ${onTree('old.object_id')} BEGIN
  ${drop('old.object_id', 'old.tag_id')}
END;
CREATE TRIGGER tag_counts_unplaced AFTER DELETE ON closure WHEN old.ancestor_id = ${PUBLICATION_ID} AND old.descendant_id <> ${PUBLICATION_ID} BEGIN
  ${drop('old.descendant_id', tagsOf('old.descendant_id'))}
END;
CREATE TRIGGER tag_counts_restate AFTER UPDATE OF status, start_date, end_date, read_groups ON objects
WHEN (old.status IS NOT new.status OR ${unrestricted('old')} IS NOT ${unrestricted('new')}) AND ${onTree('new.id')} BEGIN
  UPDATE tag_counts SET n = n - 1 WHERE tag_id IN (${tagsOf('old.id')}) AND ${unrestricted('old')} AND status = old.status;
  DELETE FROM tag_restricted WHERE object_id = old.id;
  ${add('ot.object_id = new.id')}
END;`

/** Creates the counts and their triggers when a part is missing (a store from before them) and fills them once. */
export function ensureTagCounts (db: Database.Database): void {
  const present = db.prepare(`SELECT COUNT(*) AS n FROM sqlite_master WHERE name IN (${PARTS.map(() => '?').join(', ')})`).get(...PARTS) as { n: number }
  if (present.n === PARTS.length) return
  for (const name of PARTS.slice(2)) db.exec(`DROP TRIGGER IF EXISTS ${name}`)
  db.exec('DROP TABLE IF EXISTS tag_counts; DROP TABLE IF EXISTS tag_restricted;')
  db.exec(TABLES + TRIGGERS)
  db.exec(add(onTree('ot.object_id')))
}

/** Around a bulk insert whose new tag and closure rows all lead to objects from `least` on (see countedInBulk). */
export const tagCountsInBulk: { before: (db: Database.Database) => void, after: (db: Database.Database, least: number | null) => void } = {
  before: (db) => db.exec('DROP TRIGGER tag_counts_tagged; DROP TRIGGER tag_counts_placed;'),
  after: (db, least) => {
    if (least !== null) db.exec(add(`ot.object_id >= ${least} AND ${onTree('ot.object_id')}`))
    db.exec(INSERT_TRIGGERS)
  },
}

/**
 * SQL for `n`, the number of the publication's descendants tagged `@tag` that a visibility admits, as
 * a COUNT over the list would answer.
 */
export const countTagged = (tag: string) => `SELECT
  COALESCE((SELECT SUM(n) FROM tag_counts WHERE tag_id = (SELECT id FROM tags WHERE name = ${tag})
    AND status IN (SELECT value FROM json_each(@statuses))), 0)
  + (SELECT COUNT(*) FROM tag_restricted r JOIN objects o ON o.id = r.object_id
    WHERE r.tag_id = (SELECT id FROM tags WHERE name = ${tag}) AND ${VISIBLE}) AS n`
