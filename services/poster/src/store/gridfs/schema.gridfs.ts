import type { Logger } from '@content/platform'
import { migrateMongo, type MigrateMode, type Migration, type MigrationReport } from '@content/platform/migrations'
import type { Db } from 'mongodb'
import { ORIGINALS_BUCKET, THUMBNAILS_BUCKET, namedBucket } from './gridfs-common.js'

/**
 * The GridFS buckets' indexes, version by version (the `poster` document of `schema_versions`). Version 1
 * is what the last release before versions made on open: the chunk index the driver makes only on a first
 * upload (same spec), and the files' fields the store looks up by.
 */
export const GRIDFS_MIGRATIONS: Migration<Db>[] = [
  {
    version: 1,
    name: 'chunk and file indexes of both buckets',
    async up (db) {
      const indexes: [string, string[]][] = [[ORIGINALS_BUCKET, ['metadata.used']], [THUMBNAILS_BUCKET, ['metadata.original', 'metadata.used']]]
      for (const [name, fields] of indexes) {
        const b = namedBucket(db, name)
        await b.chunks.createIndex({ files_id: 1, n: 1 }, { unique: true })
        for (const field of fields) await b.files.createIndex({ [field]: 1 })
      }
    },
  },
]

/** A database with the originals bucket but no recorded poster version: an earlier release wrote it. */
const earlierRelease = async (db: Db): Promise<boolean> =>
  (await db.listCollections({ name: `${ORIGINALS_BUCKET}.files` }, { nameOnly: true }).toArray()).length > 0

/** Brings the buckets to this release's indexes (`migrate`), or refuses them when they are not there (`check`). */
export function migrateGridfs (db: Db, mode: MigrateMode, log?: Logger): Promise<MigrationReport> {
  return migrateMongo(db, { store: 'poster', migrations: GRIDFS_MIGRATIONS, mode, earlierRelease, ...(log ? { log } : {}) })
}
