import type Database from 'better-sqlite3'

/**
 * The indexes of the query grammar's lists (decisions §15) that need the own fields' columns, made once
 * those exist (addOwnFieldColumns): objects by publication date, and each tag row keeping its object's
 * publication date in an index that orders a tag's objects by it, so that `filter[tags]=…&sort=
 * -publication_date` over the whole store reads a page's twenty entries instead of sorting every object
 * of the tag (`services/objects/bench/tag-order.experiment.mjs`; figures in loadtest/README.md). Written with the tag row; a trigger follows the object's date. A store
 * from before gets the column filled once.
 */
export function ensureListIndexes (db: Database.Database): void {
  const columns = new Set((db.pragma('table_info(object_tags)') as { name: string }[]).map((c) => c.name))
  if (!columns.has('publication_date')) {
    db.transaction(() => {
      db.exec('ALTER TABLE object_tags ADD COLUMN publication_date INTEGER')
      db.exec('UPDATE object_tags SET publication_date = (SELECT publication_date FROM objects WHERE id = object_id)')
    })()
  }
  db.exec(`CREATE INDEX IF NOT EXISTS objects_publication ON objects(publication_date);
CREATE INDEX IF NOT EXISTS object_tags_by_date ON object_tags(tag_id, publication_date DESC, object_id);
CREATE TRIGGER IF NOT EXISTS object_tags_date AFTER UPDATE OF publication_date ON objects
  WHEN old.publication_date IS NOT new.publication_date BEGIN
  UPDATE object_tags SET publication_date = new.publication_date WHERE object_id = new.id;
END;`)
}

/** The value a new tag row of object `@id` keeps beside it. */
export const TAG_DATE = '(SELECT publication_date FROM objects WHERE id = @id)'
