import type Database from 'better-sqlite3'
import type { OwnFields } from '@content/api-schema'
import type { RevisionsPort } from '../../core/ports.js'
import type { RevisionRecord } from '../../core/revisions.js'
import type { Statements } from './rows.sqlite.js'
import { answer } from './transactions.sqlite.js'

/**
 * Revisions of objects' own fields (decisions §16); `data` is their JSON after the change. A rowid table:
 * in a WITHOUT ROWID one a 2 KB row spills into an overflow page (more file per revision: loadtest/README.md,
 * "Revisions").
 */
const REVISIONS_SCHEMA = `
CREATE TABLE IF NOT EXISTS revisions (
  object_id INTEGER NOT NULL,
  revision INTEGER NOT NULL,
  created INTEGER NOT NULL,
  user_id INTEGER NOT NULL,
  changed TEXT NOT NULL,  -- JSON array of field names
  data TEXT NOT NULL,     -- JSON object of the own fields
  PRIMARY KEY (object_id, revision)
);
`

export function ensureRevisions (db: Database.Database): void {
  db.exec(REVISIONS_SCHEMA)
}

/** Stores the object's next revision; answers its number. Call inside the write's transaction. */
export function addRevision (st: Statements, id: number, revision: Omit<RevisionRecord, 'revision'>): number {
  const n = (st.one<{ n: number | null }>('SELECT MAX(revision) AS n FROM revisions WHERE object_id = @id', { id })?.n ?? 0) + 1
  st.run('INSERT INTO revisions (object_id, revision, created, user_id, changed, data) VALUES (@id, @n, @created, @user, @changed, @data)', {
    id, n, created: revision.created, user: revision.user_id, changed: JSON.stringify(revision.changed), data: JSON.stringify(revision.data),
  })
  return n
}

/** Drops the object's revisions numbered below `below` (null: all). Call inside the write's transaction. */
export function dropRevisions (st: Statements, id: number, below: number | null): void {
  if (below === null) st.run('DELETE FROM revisions WHERE object_id = @id', { id })
  else st.run('DELETE FROM revisions WHERE object_id = @id AND revision < @below', { id, below })
}

interface Row { revision: number, created: number, user_id: number, changed: string, data: string }
const toRevision = (r: Row): RevisionRecord => ({
  revision: r.revision, created: r.created, user_id: r.user_id, changed: JSON.parse(r.changed) as string[], data: JSON.parse(r.data) as OwnFields,
})

export function revisionsPort (st: Statements): RevisionsPort {
  return {
    list: (id, offset, limit) => answer(() => ({
      items: st.all<Row>('SELECT revision, created, user_id, changed, data FROM revisions WHERE object_id = @id ORDER BY revision DESC LIMIT @limit OFFSET @offset',
        { id, limit, offset }).map(toRevision),
      total: st.one<{ n: number }>('SELECT COUNT(*) AS n FROM revisions WHERE object_id = @id', { id })?.n ?? 0,
    })),
    get: (id, n) => answer(() => {
      const row = st.one<Row>('SELECT revision, created, user_id, changed, data FROM revisions WHERE object_id = @id AND revision = @n', { id, n })
      return row === undefined ? null : toRevision(row)
    }),
  }
}
