import type { OwnFields } from '@content/api-schema'
import type { RevisionsPort } from '../../core/ports.js'
import { oldestKept, revisionDraft, type RevisionRecord, type RevisionsKeep } from '../../core/revisions.js'
import type { ObjectRecord } from '../../core/types.js'
import type { Db } from './db.postgres.js'

/** Records the revision of a write of object `id` and drops those past `keep` (revisions.sqlite.ts). */
export async function recordRevision (db: Db, id: number, before: ObjectRecord | null, after: ObjectRecord | null, now: number, userId: number, keep: RevisionsKeep): Promise<void> {
  if (keep === 0 || after === null) return
  const draft = revisionDraft(before, after)
  if (draft === null) return
  const row = await db.one<{ n: number }>(`INSERT INTO revisions (object_id, revision, created, user_id, changed, data)
    SELECT @id, COALESCE(MAX(revision), 0) + 1, @now, @user, @changed, @data FROM revisions WHERE object_id = @id RETURNING revision AS n`,
  { id, now, user: userId, changed: JSON.stringify(draft.changed), data: JSON.stringify(draft.data) })
  if (keep !== null && row !== undefined) await db.run('DELETE FROM revisions WHERE object_id = @id AND revision < @oldest', { id, oldest: oldestKept(row.n, keep) })
}

export async function dropRevisions (db: Db, id: number): Promise<void> {
  await db.run('DELETE FROM revisions WHERE object_id = @id', { id })
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
