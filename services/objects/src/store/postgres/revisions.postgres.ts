import type { OwnFields } from '@content/api-schema'
import type { RevisionsPort } from '../../core/ports.js'
import type { RevisionRecord } from '../../core/revisions.js'
import type { Db } from './db.postgres.js'

/** Stores the object's next revision (from 1 per object); answers its number. */
export async function addRevision (db: Db, id: number, revision: Omit<RevisionRecord, 'revision'>): Promise<number> {
  const row = await db.one<{ n: number }>(`INSERT INTO revisions (object_id, revision, created, user_id, changed, data)
    SELECT @id, COALESCE(MAX(revision), 0) + 1, @created, @user, @changed, @data FROM revisions WHERE object_id = @id RETURNING revision AS n`,
  { id, created: revision.created, user: revision.user_id, changed: JSON.stringify(revision.changed), data: JSON.stringify(revision.data) })
  if (row === undefined) throw new Error('no revision row')
  return row.n
}

/** Drops the object's revisions numbered below `below` (null: all). */
export async function dropRevisions (db: Db, id: number, below: number | null): Promise<void> {
  if (below === null) await db.run('DELETE FROM revisions WHERE object_id = @id', { id })
  else await db.run('DELETE FROM revisions WHERE object_id = @id AND revision < @below', { id, below })
}

interface Row { revision: number, created: number, user_id: number, changed: string, data: string }
const toRevision = (r: Row): RevisionRecord => ({
  revision: r.revision, created: r.created, user_id: r.user_id, changed: JSON.parse(r.changed) as string[], data: JSON.parse(r.data) as OwnFields,
})

export function revisionsPort (db: Db): RevisionsPort {
  return {
    list: async (id, offset, limit) => {
      const [items, total] = await Promise.all([
        db.all<Row>('SELECT revision, created, user_id, changed, data FROM revisions WHERE object_id = @id ORDER BY revision DESC LIMIT @limit OFFSET @offset', { id, limit, offset }),
        db.one<{ n: number }>('SELECT COUNT(*) AS n FROM revisions WHERE object_id = @id', { id }),
      ])
      return { items: items.map(toRevision), total: total?.n ?? 0 }
    },
    get: async (id, n) => {
      const row = await db.one<Row>('SELECT revision, created, user_id, changed, data FROM revisions WHERE object_id = @id AND revision = @n', { id, n })
      return row === undefined ? null : toRevision(row)
    },
  }
}
