import type { Postgres } from '@content/platform/postgres'
import type { MediaStore } from '../media.store.js'
import { postgresOriginals } from './originals.postgres.js'
import { postgresThumbnails } from './thumbnails.postgres.js'

export interface PostgresStoreOptions {
  /** a local directory for uploads in progress (they are checked before they reach the database) */
  stagingDir: string
  thumbnailMaxBytes: number
  now?: () => number
}

/** Media in the `poster` schema of PostgreSQL (migrated by POSTER_POSTGRES_MIGRATIONS). Closing it ends the pool. */
export async function openPostgresMediaStore (db: Postgres, options: PostgresStoreOptions): Promise<MediaStore> {
  return {
    originals: postgresOriginals(db, options.stagingDir, options.now ?? Date.now),
    thumbnails: await postgresThumbnails(db, options.thumbnailMaxBytes),
    close: () => db.close(),
  }
}
