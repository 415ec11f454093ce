import { mkdir, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from '@content/platform'
import type { PosterConfig } from '../config.js'
import { openLocalStore } from './local/local.store.js'
import type { MediaStore } from './media.store.js'

/** The store the configuration names: files under DATA_DIR/media, or GridFS (uploads still stage under DATA_DIR). */
export async function openMediaStore (config: PosterConfig, log: Logger, now: () => number = Date.now): Promise<MediaStore> {
  const dir = join(config.DATA_DIR, 'media')
  const thumbnailMaxBytes = config.THUMBNAIL_STORE_MAX_BYTES
  if (config.MEDIA_STORE === 'local') return openLocalStore(dir, { thumbnailMaxBytes, now })
  // The config schema already refuses MEDIA_STORE=gridfs without MONGODB_URL; this guards other callers.
  if (!config.MONGODB_URL) throw new Error('MONGODB_URL: required when MEDIA_STORE=gridfs')
  const stagingDir = join(dir, 'staging')
  await mkdir(stagingDir, { recursive: true })
  for (const name of await readdir(stagingDir)) await rm(join(stagingDir, name), { recursive: true, force: true })
  const [{ MongoClient }, { openGridfsStore }] = await Promise.all([import('mongodb'), import('./gridfs/gridfs.store.js')])
  log.debug({ db: config.MONGODB_DB }, 'opening the GridFS media store')
  const client = new MongoClient(config.MONGODB_URL, { appName: 'content-poster' })
  return openGridfsStore(client, config.MONGODB_DB, { stagingDir, thumbnailMaxBytes, now })
}
