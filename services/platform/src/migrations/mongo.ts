import { randomUUID } from 'node:crypto'
import type { Db } from 'mongodb'
import type { Logger } from 'pino'
import type { MigrationReport } from './plan.js'
import { runMigrations, type MigrationSpec, type SchemaBackend } from './runner.js'

interface VersionDoc {
  _id: string
  version: number
  applied: { version: number, name: string, at: Date }[]
}
interface LockDoc {
  _id: string
  holder: string
  expires: Date
}

/** A migration of MongoDB (indexes, back-fills): MongoDB cannot build an index in a transaction, so each must be safe to run again. */
export interface MongoMigrationSpec extends MigrationSpec<Db> {
  /** whether an unversioned database holds this store's data of an earlier release */
  earlierRelease: (db: Db) => Promise<boolean>
  log?: Pick<Logger, 'info' | 'warn'>
}

const DURABLE = { writeConcern: { w: 'majority' as const, j: true } }
const DUPLICATE_KEY = 11000
/** A lock whose holder stopped renewing it (a process that died) is taken over after this long. */
const LEASE_MS = 60_000
const WAIT_MS = 1_000

/**
 * Versions one store's part of a MongoDB database in `schema_versions` (one document per store: its
 * version and the migrations applied, with when). The lock is a lease document in `schema_locks`, taken
 * with a conditional upsert (a second process gets a duplicate key and waits), renewed while the
 * migrations run and deleted after; a holder that dies loses it when its lease runs out.
 */
export function migrateMongo (db: Db, spec: MongoMigrationSpec): Promise<MigrationReport> {
  const versions = db.collection<VersionDoc>('schema_versions')
  const locks = db.collection<LockDoc>('schema_locks')
  const backend: SchemaBackend<Db> = {
    location: `MongoDB database ${db.databaseName}`,
    async locked (work) {
      const holder = randomUUID()
      const take = () => locks.updateOne(
        { _id: spec.store, $or: [{ expires: { $lt: new Date() } }, { holder }] },
        { $set: { holder, expires: new Date(Date.now() + LEASE_MS) } }, { upsert: true, ...DURABLE })
      for (;;) {
        try {
          await take()
          break
        } catch (err) {
          if ((err as { code?: unknown }).code !== DUPLICATE_KEY) throw err
          spec.log?.warn({ store: spec.store }, 'waiting for another process\'s schema migration')
          await new Promise((resolve) => setTimeout(resolve, WAIT_MS))
        }
      }
      const renew = setInterval(() => { void take().catch(() => undefined) }, LEASE_MS / 3)
      try {
        return await work()
      } finally {
        clearInterval(renew)
        await locks.deleteOne({ _id: spec.store, holder }, DURABLE)
      }
    },
    async state () {
      const doc = await versions.findOne({ _id: spec.store })
      const version = doc?.version ?? 0
      return { version, earlierRelease: version === 0 && await spec.earlierRelease(db) }
    },
    async apply (migration) {
      await migration.up(db)
      await versions.updateOne({ _id: spec.store }, {
        $set: { version: migration.version },
        $push: { applied: { version: migration.version, name: migration.name, at: new Date() } },
      }, { upsert: true, ...DURABLE })
    },
  }
  return runMigrations(backend, spec)
}
