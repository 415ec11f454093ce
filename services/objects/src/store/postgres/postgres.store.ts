import { randomUUID } from 'node:crypto'
import type { MigrateMode } from '@content/platform/migrations'
import type { Postgres } from '@content/platform/postgres'
import type { Logger } from '@content/platform'
import { DEFAULT_COLUMNS } from '../../core/object-input.js'
import { composeStore } from '../../core/composed-store.js'
import type { ObjectsStore, StoreAdapter } from '../../core/ports.js'
import { runSteps } from '../../core/unit-of-work.js'
import { PUBLICATION_ID } from '../../core/publication.js'
import type { StoreOptions } from '../store-options.js'
import { poolDb, type Db } from './db.postgres.js'
import { foldCounts } from './background.postgres.js'
import { PostgresImportSteps, tidyAfterImport } from './fixtures.postgres.js'
import { idempotencyRows } from './idempotency.postgres.js'
import { listenForCommits } from './listen.postgres.js'
import { OBJECTS_SCHEMA, migrateObjects } from './migrations.postgres.js'
import { objectsReads, vocabularyPort } from './objects.postgres.js'
import { changesChannel, changesPort } from './outbox.postgres.js'
import { relationsReads } from './relations.postgres.js'
import { revisionsPort } from './revisions.postgres.js'
import { Sequencer } from './sequencer.postgres.js'
import { listsPort } from './select.postgres.js'
import { Transactions } from './transactions.postgres.js'
import { trashReads } from './trash.postgres.js'
import { treeReads } from './tree.postgres.js'
import { uploadsPort } from './uploads.postgres.js'
import { webhooksPort } from './webhooks.postgres.js'
import { insertObject } from './writes.postgres.js'
import { PostgresSteps } from './write-steps.postgres.js'

/** How often a process numbers what other processes left unnumbered (each numbers its own writes' at once). */
const SEQUENCER_SWEEP_MS = 1_000

export interface PostgresStoreOptions extends StoreOptions {
  /**
   * the schema of its tables (`objects` unless given: the tests give each store one of its own); the
   * pool's connections name it first in their search_path (`storeUrl`)
   */
  schema?: string
  /** MIGRATE_ON_START: `migrate` brings the schema to this release's version, `check` refuses one that is not */
  migrate?: MigrateMode
  log?: Pick<Logger, 'info'>
}

/**
 * Opens the objects store in its schema of the database `postgres` reaches: migrates it
 * (migrations.postgres.ts), bootstraps the publication, and listens for the commits of every process on
 * it. The store closes the pool when it closes.
 */
export async function openPostgresStore (postgres: Postgres, options: PostgresStoreOptions): Promise<ObjectsStore> {
  return composeStore(await openPostgresAdapter(postgres, options), { revisionsKeep: options.revisionsKeep ?? null })
}

/** The adapter alone: its reads and steps, without core's composition (composeStore). */
export async function openPostgresAdapter (postgres: Postgres, options: PostgresStoreOptions): Promise<StoreAdapter> {
  const schema = options.schema ?? OBJECTS_SCHEMA
  const db = poolDb(postgres)
  await migrateObjects(postgres, options.migrate ?? 'migrate', options.log, schema)
  const clock = options.now ?? Date.now
  // which process committed: a commit's notice names it, and a process hears its own commits at once
  const origin = randomUUID()
  const listeners = new Set<() => void>()
  const tell = () => { for (const l of listeners) l() }
  const sequencer = new Sequencer(postgres, changesChannel(schema), origin, tell)
  const tx = new Transactions(postgres, clock, sequencer, listeners)
  await bootstrap(tx, options.publicationNickname, clock())
  const storeId = await storeIdentity(db)
  const listener = await listenForCommits(postgres, changesChannel(schema), origin, tell)
  // numbers what committed unnumbered while no process ran (a writer that died between its commit and its run)
  sequencer.start(SEQUENCER_SWEEP_MS)
  const folding = foldCounts(tx, (err) => options.onBackgroundError?.(err, 'folding the kept counts failed; the next fold tries again'))
  return {
    kind: 'postgres',
    storeId,
    objects: objectsReads(db),
    tree: treeReads(db),
    relations: relationsReads(db),
    lists: listsPort(db),
    vocabulary: vocabularyPort(db),
    uploads: uploadsPort(db, tx),
    changes: changesPort(db),
    webhooks: webhooksPort(db, tx),
    idempotency: idempotencyRows(db, tx),
    trash: trashReads(db),
    revisions: revisionsPort(db),
    write: (work) => tx.write((t) => Promise.resolve(runSteps(work(new PostgresSteps(t))))),
    importInBulk: async (work) => {
      let written: string[] = []
      const answer = await tx.write(async (t) => {
        const steps = new PostgresImportSteps(t)
        const value = await runSteps(work(steps))
        await steps.finish()
        written = steps.written()
        return value
      }, { bulk: true })
      // an import leaves a delta per node and statement: folded at once, not summed by every read until the next fold
      await folding.now()
      // committed: a failure here leaves autovacuum to do it later, and the import stands
      await tidyAfterImport(postgres, written).catch((err: unknown) => options.onBackgroundError?.(err, 'vacuuming the tables after an import failed; autovacuum will'))
      return answer
    },
    // PostgreSQL's transactions have no time limit: a file is one transaction
    importLimit: null,
    committedSeq: () => tx.committed,
    // a commit is on disk when COMMIT answers (synchronous_commit on): nothing waits
    durable: () => Promise.resolve(),
    onChange (l) {
      listeners.add(l)
      return () => { listeners.delete(l) }
    },
    close: async () => {
      listeners.clear()
      await folding.stop()
      await sequencer.stop()
      await listener.close()
      await postgres.close()
    },
  }
}

/** The store's identity, made once and kept with the data. */
async function storeIdentity (db: Db): Promise<string> {
  await db.run("INSERT INTO meta (key, value) VALUES ('store_id', @id) ON CONFLICT (key) DO NOTHING", { id: randomUUID() })
  const row = await db.one<{ value: string }>("SELECT value FROM meta WHERE key = 'store_id'")
  if (row === undefined) throw new Error('the store_id row is missing')
  return row.value
}

/** An empty store gets the publication: object 1, an area, status on; two processes starting at once make it once. */
async function bootstrap (tx: Transactions, nickname: string, now: number): Promise<void> {
  await tx.unseen(async (db) => {
    await db.one('SELECT pg_advisory_xact_lock(4801002)')
    if (await db.one('SELECT 1 FROM objects WHERE id = @id', { id: PUBLICATION_ID })) return
    if (await db.one('SELECT 1 FROM objects LIMIT 1')) throw new Error('the store has objects but no publication (object 1)')
    // the publication is there before anyone follows the store: no event
    const quiet = { db, at: now, record: async () => {}, reserveNumbers: () => Promise.reject(new Error('no events at bootstrap')), created: () => {}, linked: () => {} }
    const { id } = await insertObject(quiet, {
      object_type: 'area', nickname, status: 'on', columns: { ...DEFAULT_COLUMNS, title: 'Publication' },
      read_groups: [], write_groups: [], user_id: 0, extras: {},
    }, now)
    if (id !== PUBLICATION_ID) throw new Error(`the publication got id ${id}, expected ${PUBLICATION_ID}`)
  })
}
