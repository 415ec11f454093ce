import { randomUUID } from 'node:crypto'
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import lockfile from 'proper-lockfile'
import type { Logger } from 'pino'
import type { MigrationReport } from './plan.js'
import { runMigrations, type MigrationSpec, type SchemaBackend } from './runner.js'

/** The file beside a directory store's data that records its version. */
export const VERSION_FILE = 'schema-version.json'
const LOCK_FILE = 'migrate.lock'

export interface DirectoryMigrationSpec extends MigrationSpec<string> {
  /** whether an unversioned directory holds this store's data of an earlier release */
  earlierRelease: (dir: string) => Promise<boolean>
  log?: Pick<Logger, 'info' | 'warn'>
}

/**
 * Versions a store kept as files under `dir` in `dir/schema-version.json` (`{"version": n}`, replaced
 * atomically and flushed). The lock is proper-lockfile's `dir/migrate.lock`: a second process retries
 * until the first is done; the lock of a process that died goes stale after ten seconds.
 */
export async function migrateDirectory (dir: string, spec: DirectoryMigrationSpec): Promise<MigrationReport> {
  const versionFile = join(dir, VERSION_FILE)
  const backend: SchemaBackend<string> = {
    location: dir,
    async locked (work) {
      await mkdir(dir, { recursive: true })
      const release = await lockfile.lock(dir, {
        lockfilePath: join(dir, LOCK_FILE),
        retries: { retries: 600, minTimeout: 200, maxTimeout: 1_000 },
        onCompromised: (err) => spec.log?.warn({ err, store: spec.store }, 'the migration lock was lost'),
      })
      try {
        return await work()
      } finally {
        await release()
      }
    },
    async state () {
      const version = await readVersion(versionFile)
      return { version, earlierRelease: version === 0 && await spec.earlierRelease(dir) }
    },
    async apply (migration) {
      await migration.up(dir)
      await writeDurably(versionFile, `${JSON.stringify({ version: migration.version })}\n`)
    },
  }
  return runMigrations(backend, spec)
}

async function readVersion (file: string): Promise<number> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0
    throw err
  }
  const version = (JSON.parse(text) as { version?: unknown }).version
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) throw new Error(`${file}: not a schema version`)
  return version
}

/** Replaces `file` with `text`: written beside it, flushed, renamed over it, the directory flushed. */
async function writeDurably (file: string, text: string): Promise<void> {
  const tmp = `${file}.${randomUUID()}.tmp`
  try {
    const handle = await open(tmp, 'wx')
    try {
      await handle.writeFile(text)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(tmp, file)
    const dir = await open(join(file, '..'), 'r')
    try {
      await dir.sync()
    } finally {
      await dir.close()
    }
  } finally {
    await rm(tmp, { force: true })
  }
}
