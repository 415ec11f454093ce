import { GridFSBucket, ObjectId, WriteConcern, type Collection, type Db } from 'mongodb'

/** A 2xx means the bytes are on a majority of the replica set, journalled. */
export const DURABLE = new WriteConcern('majority', undefined, true)

/** MongoDB's error code for a unique-index violation. */
const DUPLICATE_KEY = 11000
export const isDuplicateKey = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === DUPLICATE_KEY

/** Chunks of an upload that never finished (no files document) are cleared once they are this old. */
const STALE_CHUNKS_MS = 5 * 60_000

export interface FileDoc {
  _id: string
  length: number
  metadata?: { used?: Date, mime_type?: string, original?: string }
}

export interface ChunkDoc {
  _id: ObjectId
  files_id: string
  n: number
}

/**
 * One GridFS bucket whose files are named by a string `_id` (a content key or a thumbnail name). The
 * driver types ids as ObjectId; GridFS itself takes any `_id`, and these are always plain strings.
 */
export interface NamedBucket {
  readonly bucket: GridFSBucket
  readonly files: Collection<FileDoc>
  readonly chunks: Collection<ChunkDoc>
  /**
   * Clears chunks of `id` written more than a few minutes before `now` while no files document names
   * them: the rest of a failed upload, which would make every later upload of the same id collide.
   */
  clearStaleChunks(id: string, now: number): Promise<void>
  /** Chunks written before `before` (ms): the driver's chunk ids carry their creation second. */
  removeChunksBefore(id: string, before: number): Promise<void>
}

/** The bucket names: originals by content key, thumbnails by store name. */
export const ORIGINALS_BUCKET = 'media_originals'
export const THUMBNAILS_BUCKET = 'media_thumbnails'

/** A string `_id` as the driver's parameter type. */
export const fileId = (name: string): ObjectId => name as unknown as ObjectId

export function namedBucket (db: Db, name: string): NamedBucket {
  const files = db.collection<FileDoc>(`${name}.files`)
  const chunks = db.collection<ChunkDoc>(`${name}.chunks`)
  return {
    bucket: new GridFSBucket(db, { bucketName: name, writeConcern: DURABLE }),
    files,
    chunks,
    async clearStaleChunks (id, now) {
      if ((await files.countDocuments({ _id: id }, { limit: 1 })) > 0) return
      await chunks.deleteMany({ files_id: id, _id: { $lt: ObjectId.createFromTime(Math.floor((now - STALE_CHUNKS_MS) / 1000)) } })
    },
    async removeChunksBefore (id, before) {
      await chunks.deleteMany({ files_id: id, _id: { $lt: ObjectId.createFromTime(Math.floor(before / 1000)) } })
    },
  }
}
