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
export class NamedBucket {
  readonly bucket: GridFSBucket
  readonly files: Collection<FileDoc>
  readonly chunks: Collection<ChunkDoc>

  constructor (db: Db, name: string) {
    this.bucket = new GridFSBucket(db, { bucketName: name, writeConcern: DURABLE })
    this.files = db.collection<FileDoc>(`${name}.files`)
    this.chunks = db.collection<ChunkDoc>(`${name}.chunks`)
  }

  static id (name: string): ObjectId {
    return name as unknown as ObjectId
  }

  /** The driver makes the chunk index on a first upload only; make it now, with the same spec. */
  async ensureIndexes (...fileIndexes: string[]): Promise<void> {
    await this.chunks.createIndex({ files_id: 1, n: 1 }, { unique: true })
    for (const field of fileIndexes) await this.files.createIndex({ [field]: 1 })
  }

  /**
   * Clears chunks of `id` written more than a few minutes before `now` while no files document names
   * them: the rest of a failed upload, which would make every later upload of the same id collide.
   */
  async clearStaleChunks (id: string, now: number): Promise<void> {
    if ((await this.files.countDocuments({ _id: id }, { limit: 1 })) > 0) return
    await this.chunks.deleteMany({ files_id: id, _id: { $lt: ObjectId.createFromTime(Math.floor((now - STALE_CHUNKS_MS) / 1000)) } })
  }

  /** Chunks written before `before` (ms): the driver's chunk ids carry their creation second. */
  async removeChunksBefore (id: string, before: number): Promise<void> {
    await this.chunks.deleteMany({ files_id: id, _id: { $lt: ObjectId.createFromTime(Math.floor(before / 1000)) } })
  }
}
