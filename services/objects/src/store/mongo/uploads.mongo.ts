import { storedFile } from '../../core/media-file.js'
import type { UploadClaim } from '../../core/object-input.js'
import type { ObjectTypeName } from '../../core/object-types.js'
import type { PendingUpload, UploadsPort } from '../../core/ports.js'
import { UploadClaimConflict } from '../../core/conflicts.js'
import type { Collections, Tx } from './schema.mongo.js'

/**
 * Stores an upload and drops the expired ones. Two single-document writes outside a transaction
 * (majority, journaled, like every write of this database): the drop is housekeeping, and the new row
 * is whole or absent. Not a transaction of this process, so the change watcher must skip `uploads`.
 */
export async function addUpload (c: Collections, upload: PendingUpload, now: number): Promise<void> {
  await c.uploads.deleteMany({ expires: { $lte: new Date(now) } })
  await c.uploads.insertOne({
    _id: upload.token_hash, user_id: upload.user_id, object_type: upload.object_type, file: upload.file,
    expires_at: upload.expires_at, expires: new Date(upload.expires_at),
  })
}

/** The TTL monitor runs about once a minute, so every read compares with `now` itself. */
export async function getUpload (c: Collections, tokenHash: string, now: number): Promise<PendingUpload | null> {
  const doc = await c.uploads.findOne({ _id: tokenHash, expires_at: { $gt: now } })
  const file = doc === null ? null : storedFile(doc.file)
  if (doc === null || file === null) return null
  return { token_hash: doc._id, user_id: doc.user_id, object_type: doc.object_type as ObjectTypeName, file, expires_at: doc.expires_at }
}

/** Two indexed queries whatever the number of keys: objects by `file.key`, unexpired uploads by `file.key`. */
export async function filesInUse (c: Collections, keys: string[], now: number): Promise<string[]> {
  if (keys.length === 0) return []
  const [byObjects, byUploads, byTrash] = await Promise.all([
    c.objects.distinct('file.key', { 'file.key': { $in: keys } }),
    c.uploads.distinct('file.key', { 'file.key': { $in: keys }, expires_at: { $gt: now } }),
    c.trash.distinct('object.file.key', { 'object.file.key': { $in: keys } }),
  ])
  const used = new Set<unknown>([...byObjects, ...byUploads, ...byTrash])
  return keys.filter((k) => used.has(k))
}

/**
 * Consumes the claimed upload or refuses the write it belongs to. Inside that write's transaction: two
 * writes claiming one upload conflict, the driver retries the loser, which then finds no row.
 */
export async function claimUpload (tx: Tx, claim: UploadClaim | undefined): Promise<void> {
  if (claim === undefined) return
  const { deletedCount } = await tx.c.uploads.deleteOne({ _id: claim.token_hash, expires_at: { $gt: claim.now } }, { session: tx.session })
  if (deletedCount === 0) throw new UploadClaimConflict()
}

/** Pending uploads change nothing a read shows: their writes are no transaction of a write, and tell no listener. */
export function uploadsPort (c: Collections): UploadsPort {
  return {
    add: (upload, now) => addUpload(c, upload, now),
    get: (hash, now) => getUpload(c, hash, now),
    filesInUse: (keys, now) => filesInUse(c, keys, now),
  }
}
