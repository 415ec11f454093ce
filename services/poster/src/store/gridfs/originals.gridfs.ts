import { createReadStream } from 'node:fs'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Db } from 'mongodb'
import { isContentKey } from '../../core/types.js'
import { assertKey, type ByteSpan, type OriginalInfo, type OriginalsPort, type StoredOriginal } from '../media.store.js'
import { NamedBucket, isDuplicateKey } from './gridfs-common.js'

/** How long a put that lost the race to a concurrent put of the same bytes waits for that one to finish. */
const CONCURRENT_PUT_WAIT_MS = 10_000

/**
 * Originals in the GridFS bucket `media_originals`: `_id` = the content key, `metadata.used` = when the key
 * was last stored. Removal deletes the files document only while it is still idle (one conditional
 * write, so a put that refreshed `used` wins), then the chunks older than the idle limit: chunks of a
 * put racing in are newer and stay.
 */
export class GridfsOriginals implements OriginalsPort {
  private readonly b: NamedBucket

  constructor (db: Db, readonly stagingDir: string, private readonly now: () => number) {
    this.b = new NamedBucket(db, 'media_originals')
  }

  ensureIndexes (): Promise<void> {
    return this.b.ensureIndexes('metadata.used')
  }

  async put (key: string, stagedPath: string, info: OriginalInfo): Promise<'stored' | 'present'> {
    assertKey(key)
    if (await this.touch(key)) return 'present'
    await this.b.clearStaleChunks(key, this.now())
    const upload = this.b.bucket.openUploadStreamWithId(NamedBucket.id(key), key, {
      metadata: { mime_type: info.mime_type, used: new Date(this.now()) },
    })
    try {
      await pipeline(createReadStream(stagedPath), upload)
      return 'stored'
    } catch (err) {
      // the same bytes stored at the same moment elsewhere: theirs is the copy once it is complete
      if (isDuplicateKey(err) && await this.waitStored(key)) return 'present'
      throw err
    }
  }

  /** Marks a stored key as used now; false when it is not stored. */
  private async touch (key: string): Promise<boolean> {
    const res = await this.b.files.updateOne({ _id: key }, { $set: { 'metadata.used': new Date(this.now()) } })
    return res.matchedCount === 1
  }

  private async waitStored (key: string): Promise<boolean> {
    const until = Date.now() + CONCURRENT_PUT_WAIT_MS
    while (Date.now() < until) {
      if (await this.touch(key)) return true
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    return false
  }

  async stat (key: string): Promise<StoredOriginal | null> {
    assertKey(key)
    const doc = await this.b.files.findOne({ _id: key })
    return doc === null ? null : { key, size: doc.length, used: doc.metadata?.used?.getTime() ?? 0 }
  }

  async open (key: string, span?: ByteSpan): Promise<Readable | null> {
    if ((await this.stat(key)) === null) return null
    // GridFS's `end` is exclusive
    return this.b.bucket.openDownloadStream(NamedBucket.id(key), span ? { start: span.start, end: span.end + 1 } : {})
  }

  async idle (before: number, afterKey: string, limit: number): Promise<string[]> {
    const docs = await this.b.files.find({ _id: { $gt: afterKey }, 'metadata.used': { $lt: new Date(before) } }, { projection: { _id: 1 } })
      .sort({ _id: 1 }).limit(limit).toArray()
    return docs.map((d) => d._id).filter(isContentKey)
  }

  async removeIfIdle (key: string, before: number): Promise<boolean> {
    assertKey(key)
    const { deletedCount } = await this.b.files.deleteOne({ _id: key, 'metadata.used': { $lt: new Date(before) } })
    if (deletedCount === 0) return false
    await this.b.removeChunksBefore(key, before)
    return true
  }
}
