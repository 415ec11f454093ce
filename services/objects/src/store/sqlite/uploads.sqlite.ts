import { storedFileJson } from '../../core/media-file.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { UploadClaim } from '../../core/object-input.js'
import type { PendingUpload, UploadsPort } from '../../core/ports.js'
import { UploadClaimConflict } from '../../core/conflicts.js'
import type { Statements } from './rows.sqlite.js'
import { answer, type Transactions } from './transactions.sqlite.js'

/** Stores an upload and drops the expired ones. Call inside a transaction. */
export function addUpload (st: Statements, upload: PendingUpload, now: number): void {
  st.run('DELETE FROM uploads WHERE expires_at <= @now', { now })
  st.run(`INSERT INTO uploads (token_hash, user_id, object_type, file_key, file, expires_at)
    VALUES (@token_hash, @user_id, @object_type, @file_key, @file, @expires_at)`, {
    token_hash: upload.token_hash, user_id: upload.user_id, object_type: upload.object_type,
    file_key: upload.file.key, file: JSON.stringify(upload.file), expires_at: upload.expires_at,
  })
}

export function getUpload (st: Statements, tokenHash: string, now: number): PendingUpload | null {
  const row = st.one<{ token_hash: string, user_id: number, object_type: string, file: string, expires_at: number }>(
    'SELECT token_hash, user_id, object_type, file, expires_at FROM uploads WHERE token_hash = @hash AND expires_at > @now',
    { hash: tokenHash, now })
  const file = row === undefined ? null : storedFileJson(row.file)
  if (row === undefined || file === null) return null
  return { token_hash: row.token_hash, user_id: row.user_id, object_type: row.object_type as ObjectTypeName, file, expires_at: row.expires_at }
}

/** Each key is three index lookups: the objects' file-key expression index, the uploads' and the trash's key index. */
export function filesInUse (st: Statements, keys: string[], now: number): string[] {
  if (keys.length === 0) return []
  const used = new Set(st.all<{ k: string }>(
    `SELECT k.value AS k FROM json_each(@keys) k
     WHERE EXISTS (SELECT 1 FROM objects o WHERE json_extract(o.file, '$.key') = k.value)
        OR EXISTS (SELECT 1 FROM uploads u WHERE u.file_key = k.value AND u.expires_at > @now)
        OR EXISTS (SELECT 1 FROM trash t WHERE t.file_key = k.value)`,
    { keys: JSON.stringify(keys), now }).map((r) => r.k))
  return keys.filter((k) => used.has(k))
}

/** Consumes the claimed upload or refuses the write it belongs to. Call inside that write's transaction. */
export function claimUpload (st: Statements, claim: UploadClaim | undefined): void {
  if (claim === undefined) return
  const deleted = st.run('DELETE FROM uploads WHERE token_hash = @hash AND expires_at > @now', { hash: claim.token_hash, now: claim.now }).changes
  if (deleted === 0) throw new UploadClaimConflict()
}

export function uploadsPort (st: Statements, tx: Transactions): UploadsPort {
  return {
    add: (upload, now) => tx.unseen(() => addUpload(st, upload, now)),
    get: (hash, now) => answer(() => getUpload(st, hash, now)),
    filesInUse: (keys, now) => answer(() => filesInUse(st, keys, now)),
  }
}
