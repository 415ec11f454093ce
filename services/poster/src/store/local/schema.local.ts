import { mkdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from '@content/platform'
import { migrateDirectory, type MigrateMode, type Migration, type MigrationReport } from '@content/platform/migrations'

/**
 * The layout of the local media directory, version by version (`schema-version.json` in it). Version 1 is
 * the layout of the last release before versions, which made it on open: `originals/`, `thumbnails/`,
 * `staging/`.
 */
export const LOCAL_MEDIA_MIGRATIONS: Migration<string>[] = [
  {
    version: 1,
    name: 'originals, thumbnails and staging directories',
    async up (dir) {
      for (const part of ['originals', 'thumbnails', 'staging']) await mkdir(join(dir, part), { recursive: true })
    },
  },
]

/** A directory with `originals/` but no version file: an earlier release wrote it. */
const earlierRelease = async (dir: string): Promise<boolean> => (await stat(join(dir, 'originals')).catch(() => null))?.isDirectory() === true

/** Brings the media directory to this release's layout (`migrate`), or refuses it when it is not there (`check`). */
export function migrateLocalMedia (dir: string, mode: MigrateMode, log?: Logger): Promise<MigrationReport> {
  return migrateDirectory(dir, { store: 'poster', migrations: LOCAL_MEDIA_MIGRATIONS, mode, earlierRelease, ...(log ? { log } : {}) })
}
