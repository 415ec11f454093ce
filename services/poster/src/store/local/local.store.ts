import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { MediaStore } from '../media.store.js'
import { localOriginals } from './originals.local.js'
import { localThumbnails } from './thumbnails.local.js'

export interface LocalStoreOptions {
  /** THUMBNAIL_STORE_MAX_BYTES */
  thumbnailMaxBytes: number
  /** the clock that marks originals as used */
  now?: () => number
}

/**
 * Media under one directory laid out by migrateLocalMedia: `originals/`, `thumbnails/` and `staging/`
 * (uploads in progress and temporary files; on the same file system, so a finished file moves into place
 * with a rename). What a crash left in `staging/` is removed at open.
 */
export async function openLocalStore (dir: string, options: LocalStoreOptions): Promise<MediaStore> {
  const staging = join(dir, 'staging')
  for (const name of await readdir(staging)) await rm(join(staging, name), { recursive: true, force: true })
  return {
    originals: localOriginals(join(dir, 'originals'), staging, options.now ?? Date.now),
    thumbnails: await localThumbnails(join(dir, 'thumbnails'), staging, options.thumbnailMaxBytes),
    close: async () => undefined,
  }
}
