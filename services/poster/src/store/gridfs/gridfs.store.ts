import type { MongoClient } from 'mongodb'
import type { MediaStore } from '../media.store.js'
import { DURABLE } from './gridfs-common.js'
import { gridfsOriginals } from './originals.gridfs.js'
import { gridfsThumbnails } from './thumbnails.gridfs.js'

export interface GridfsStoreOptions {
  /** a local directory for uploads in progress (they are checked before they reach the database) */
  stagingDir: string
  thumbnailMaxBytes: number
  now?: () => number
}

/**
 * Media in GridFS buckets of `dbName` (their indexes made by migrateGridfs). Takes ownership of `client`
 * (closed by close(), or when opening fails).
 */
export async function openGridfsStore (client: MongoClient, dbName: string, options: GridfsStoreOptions): Promise<MediaStore> {
  try {
    const db = client.db(dbName, { writeConcern: DURABLE })
    return {
      originals: gridfsOriginals(db, options.stagingDir, options.now ?? Date.now),
      thumbnails: await gridfsThumbnails(db, options.thumbnailMaxBytes),
      close: () => client.close(),
    }
  } catch (err) {
    await client.close().catch(() => { /* the open error is the one to report */ })
    throw err
  }
}
