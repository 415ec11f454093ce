import type { Db } from 'mongodb'
import { assertName, type ThumbnailsPort } from '../media.store.js'
import { THUMBNAILS_BUCKET, fileId, isDuplicateKey, namedBucket } from './gridfs-common.js'

const EVICT_BATCH = 100

/**
 * Thumbnails in the GridFS bucket `media_thumbnails`: `_id` = the store name, `metadata.original` = the
 * original's key, `metadata.used` = the last use. Replicas share the bucket, so the byte total is counted
 * again on the server before evicting, least recently used first. A thumbnail that cannot be read whole
 * is dropped and rendered again.
 */
export async function gridfsThumbnails (db: Db, maxBytes: number): Promise<ThumbnailsPort> {
  const b = namedBucket(db, THUMBNAILS_BUCKET)
  const remove = async (name: string): Promise<void> => {
    await b.bucket.delete(fileId(name)).catch(() => undefined) // already gone is fine
  }
  const countBytes = async (): Promise<number> => {
    const [sum] = await b.files.aggregate<{ bytes: number }>([{ $group: { _id: null, bytes: { $sum: '$length' } } }]).toArray()
    return sum?.bytes ?? 0
  }
  let total = await countBytes()
  const evict = async (): Promise<void> => {
    total = await countBytes()
    while (total > maxBytes) {
      const oldest = await b.files.find({}, { projection: { _id: 1, length: 1 } }).sort({ 'metadata.used': 1 }).limit(EVICT_BATCH).toArray()
      if (oldest.length === 0) return
      for (const doc of oldest) {
        if (total <= maxBytes) return
        await remove(doc._id)
        total -= doc.length
      }
    }
  }

  return {
    async get (name) {
      assertName(name)
      if ((await b.files.countDocuments({ _id: name }, { limit: 1 })) === 0) return null
      try {
        const parts: Buffer[] = []
        for await (const part of b.bucket.openDownloadStream(fileId(name))) parts.push(part as Buffer)
        void b.files.updateOne({ _id: name }, { $set: { 'metadata.used': new Date() } }).catch(() => undefined)
        return Buffer.concat(parts)
      } catch {
        await remove(name)
        return null
      }
    },
    async put (name, originalKey, bytes) {
      assertName(name)
      if (bytes.length > maxBytes) return
      await b.clearStaleChunks(name, Date.now())
      const upload = b.bucket.openUploadStreamWithId(fileId(name), name, { metadata: { original: originalKey, used: new Date() } })
      try {
        await new Promise<void>((resolve, reject) => {
          upload.once('error', reject).once('finish', resolve)
          upload.end(bytes)
        })
      } catch (err) {
        if (isDuplicateKey(err)) return // another replica stored the same thumbnail
        throw err
      }
      total += bytes.length
      if (total > maxBytes) await evict()
    },
    async removeFor (originalKey) {
      const docs = await b.files.find({ 'metadata.original': originalKey }, { projection: { _id: 1 } }).toArray()
      for (const doc of docs) await remove(doc._id)
      return docs.length
    },
  }
}
