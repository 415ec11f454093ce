import { createReadStream } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import type { Db } from 'mongodb'
import { isContentKey } from '../../core/types.js'
import { assertKey, type OriginalsPort, type StoredOriginal } from '../media.store.js'
import { ORIGINALS_BUCKET, fileId, isDuplicateKey, namedBucket } from './gridfs-common.js'

/** How long a put that lost the race to a concurrent put of the same bytes waits for that one to finish. */
const CONCURRENT_PUT_WAIT_MS = 10_000

/**
 * Originals in the GridFS bucket `media_originals`: `_id` = the content key, `metadata.used` = when the key
 * was last stored. Removal deletes the files document only while it is still idle (one conditional
 * write, so a put that refreshed `used` wins), then the chunks older than the idle limit: chunks of a
 * put racing in are newer and stay.
 */
export function gridfsOriginals (db: Db, stagingDir: string, now: () => number): OriginalsPort {
  const b = namedBucket(db, ORIGINALS_BUCKET)
  /** Marks a stored key as used now; false when it is not stored. */
  const touch = async (key: string): Promise<boolean> =>
    (await b.files.updateOne({ _id: key }, { $set: { 'metadata.used': new Date(now()) } })).matchedCount === 1
  const waitStored = async (key: string): Promise<boolean> => {
    const until = Date.now() + CONCURRENT_PUT_WAIT_MS
    while (Date.now() < until) {
      if (await touch(key)) return true
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    return false
  }
  const statOf = async (key: string): Promise<StoredOriginal | null> => {
    assertKey(key)
    const doc = await b.files.findOne({ _id: key })
    return doc === null ? null : { key, size: doc.length, used: doc.metadata?.used?.getTime() ?? 0 }
  }

  return {
    stagingDir,
    async put (key, stagedPath, info) {
      assertKey(key)
      if (await touch(key)) return 'present'
      await b.clearStaleChunks(key, now())
      const upload = b.bucket.openUploadStreamWithId(fileId(key), key, {
        metadata: { mime_type: info.mime_type, used: new Date(now()) },
      })
      try {
        await pipeline(createReadStream(stagedPath), upload)
        return 'stored'
      } catch (err) {
        // the same bytes stored at the same moment elsewhere: theirs is the copy once it is complete
        if (isDuplicateKey(err) && await waitStored(key)) return 'present'
        throw err
      }
    },
    stat: statOf,
    async open (key, span) {
      if ((await statOf(key)) === null) return null
      // GridFS's `end` is exclusive
      return b.bucket.openDownloadStream(fileId(key), span ? { start: span.start, end: span.end + 1 } : {})
    },
    async idle (before, afterKey, limit) {
      const docs = await b.files.find({ _id: { $gt: afterKey }, 'metadata.used': { $lt: new Date(before) } }, { projection: { _id: 1 } })
        .sort({ _id: 1 }).limit(limit).toArray()
      return docs.map((d) => d._id).filter(isContentKey)
    },
    async removeIfIdle (key, before) {
      assertKey(key)
      const { deletedCount } = await b.files.deleteOne({ _id: key, 'metadata.used': { $lt: new Date(before) } })
      if (deletedCount === 0) return false
      await b.removeChunksBefore(key, before)
      return true
    },
  }
}
