import { UploadClaimConflict } from '../../core/conflicts.js'
import { storedFileJson } from '../../core/media-file.js'
import type { UploadClaim } from '../../core/object-input.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { UploadsPort } from '../../core/ports.js'
import type { Db } from './db.postgres.js'
import type { Transactions } from './transactions.postgres.js'

/** Consumes the claimed upload or refuses the write it belongs to; a row two writers claim is deleted by one. */
export async function claimUpload (db: Db, claim: UploadClaim | undefined): Promise<void> {
  if (claim === undefined) return
  const deleted = await db.run('DELETE FROM uploads WHERE token_hash = @hash AND expires_at > @now', { hash: claim.token_hash, now: claim.now })
  if (deleted === 0) throw new UploadClaimConflict()
}

export function uploadsPort (db: Db, tx: Transactions): UploadsPort {
  return {
    add: (upload, now) => tx.unseen(async (t) => {
      await t.run('DELETE FROM uploads WHERE expires_at <= @now', { now })
      await t.run(`INSERT INTO uploads (token_hash, user_id, object_type, file_key, file, expires_at)
        VALUES (@token_hash, @user_id, @object_type, @file_key, @file, @expires_at)`, {
        token_hash: upload.token_hash, user_id: upload.user_id, object_type: upload.object_type,
        file_key: upload.file.key, file: JSON.stringify(upload.file), expires_at: upload.expires_at,
      })
    }),
    get: async (hash, now) => {
      const row = await db.one<{ token_hash: string, user_id: number, object_type: string, file: string, expires_at: number }>(
        'SELECT token_hash, user_id, object_type, file, expires_at FROM uploads WHERE token_hash = @hash AND expires_at > @now', { hash, now })
      const file = row === undefined ? null : storedFileJson(row.file)
      if (row === undefined || file === null) return null
      return { token_hash: row.token_hash, user_id: row.user_id, object_type: row.object_type as ObjectTypeName, file, expires_at: row.expires_at }
    },
    filesInUse: async (keys, now) => {
      if (keys.length === 0) return []
      const used = new Set((await db.rawAll<[string]>(`SELECT k FROM unnest(@keys::text[]) k
        WHERE EXISTS (SELECT 1 FROM objects o WHERE o.file_key = k)
           OR EXISTS (SELECT 1 FROM uploads u WHERE u.file_key = k AND u.expires_at > @now)
           OR EXISTS (SELECT 1 FROM trash t WHERE t.file_key = k)`, { keys, now })).map((r) => r[0]))
      return keys.filter((k) => used.has(k))
    },
  }
}
