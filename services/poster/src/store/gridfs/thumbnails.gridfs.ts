import type { Db } from 'mongodb'
import { assertName, type ThumbnailsPort } from '../media.store.js'
import { NamedBucket, isDuplicateKey } from './gridfs-common.js'

const EVICT_BATCH = 100

/**
 * Thumbnails in the GridFS bucket `media_thumbnails`: `_id` = the store name, `metadata.original` = the
 * original's key, `metadata.used` = the last use. Replicas share the bucket, so the byte total is counted
 * again on the server before evicting, least recently used first. A thumbnail that cannot be read whole
 * is dropped and rendered again.
 */
export class GridfsThumbnails implements ThumbnailsPort {
  private readonly b: NamedBucket
  private total = 0

  private constructor (db: Db, private readonly maxBytes: number) {
    this.b = new NamedBucket(db, 'media_thumbnails')
  }

  static async open (db: Db, maxBytes: number): Promise<GridfsThumbnails> {
    const store = new GridfsThumbnails(db, maxBytes)
    await store.b.ensureIndexes('metadata.original', 'metadata.used')
    store.total = await store.countBytes()
    return store
  }

  async get (name: string): Promise<Buffer | null> {
    assertName(name)
    if ((await this.b.files.countDocuments({ _id: name }, { limit: 1 })) === 0) return null
    try {
      const parts: Buffer[] = []
      for await (const part of this.b.bucket.openDownloadStream(NamedBucket.id(name))) parts.push(part as Buffer)
      void this.b.files.updateOne({ _id: name }, { $set: { 'metadata.used': new Date() } }).catch(() => undefined)
      return Buffer.concat(parts)
    } catch {
      await this.remove(name)
      return null
    }
  }

  async put (name: string, originalKey: string, bytes: Buffer): Promise<void> {
    assertName(name)
    if (bytes.length > this.maxBytes) return
    await this.b.clearStaleChunks(name, Date.now())
    const upload = this.b.bucket.openUploadStreamWithId(NamedBucket.id(name), name, { metadata: { original: originalKey, used: new Date() } })
    try {
      await new Promise<void>((resolve, reject) => {
        upload.once('error', reject).once('finish', resolve)
        upload.end(bytes)
      })
    } catch (err) {
      if (isDuplicateKey(err)) return // another replica stored the same thumbnail
      throw err
    }
    this.total += bytes.length
    if (this.total > this.maxBytes) await this.evict()
  }

  async removeFor (originalKey: string): Promise<number> {
    const docs = await this.b.files.find({ 'metadata.original': originalKey }, { projection: { _id: 1 } }).toArray()
    for (const doc of docs) await this.remove(doc._id)
    return docs.length
  }

  private async remove (name: string): Promise<void> {
    await this.b.bucket.delete(NamedBucket.id(name)).catch(() => undefined) // already gone is fine
  }

  private async countBytes (): Promise<number> {
    const [sum] = await this.b.files.aggregate<{ bytes: number }>([{ $group: { _id: null, bytes: { $sum: '$length' } } }]).toArray()
    return sum?.bytes ?? 0
  }

  private async evict (): Promise<void> {
    this.total = await this.countBytes()
    while (this.total > this.maxBytes) {
      const oldest = await this.b.files.find({}, { projection: { _id: 1, length: 1 } }).sort({ 'metadata.used': 1 }).limit(EVICT_BATCH).toArray()
      if (oldest.length === 0) return
      for (const doc of oldest) {
        if (this.total <= this.maxBytes) return
        await this.remove(doc._id)
        this.total -= doc.length
      }
    }
  }
}
