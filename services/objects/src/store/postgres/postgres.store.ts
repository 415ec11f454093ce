import { randomUUID } from 'node:crypto'
import type pg from 'pg'
import { DEFAULT_COLUMNS } from '../../core/object-input.js'
import type { ObjectsStore } from '../../core/ports.js'
import { PUBLICATION_ID } from '../../core/publication.js'
import type { StoreOptions } from '../store-options.js'
import { Db } from './db.postgres.js'
import { applyPlan } from './fixtures.postgres.js'
import { idempotencyPort } from './idempotency.postgres.js'
import { listenForCommits } from './listen.postgres.js'
import { migrate } from './migrations.postgres.js'
import { objectsPort, vocabularyPort } from './objects.postgres.js'
import { changesChannel, changesPort } from './outbox.postgres.js'
import { relationsPort } from './relations.postgres.js'
import { revisionsPort } from './revisions.postgres.js'
import { schedulePort } from './schedule.postgres.js'
import { listsPort } from './select.postgres.js'
import { Transactions } from './transactions.postgres.js'
import { trashPort } from './trash.postgres.js'
import { treePort } from './tree.postgres.js'
import { uploadsPort } from './uploads.postgres.js'
import { webhooksPort } from './webhooks.postgres.js'
import { insertObject } from './writes.postgres.js'

export interface PostgresStoreOptions extends StoreOptions {
  /** the libpq URL: the commit listener's own connection */
  url: string
}

/**
 * Opens the objects store in the database `pool` reaches: migrates it (migrations.postgres.ts),
 * bootstraps the publication, and listens for the commits of every process on it. The store closes the pool.
 */
export async function openPostgresStore (pool: pg.Pool, options: PostgresStoreOptions): Promise<ObjectsStore> {
  const db = new Db(pool)
  await migrate(db)
  const clock = options.now ?? Date.now
  // which process committed: a commit's notice names it, and a process hears its own commits at once
  const origin = randomUUID()
  const schema = (await db.one<{ s: string }>('SELECT current_schema() AS s'))?.s ?? 'public'
  const channel = changesChannel(schema)
  const tx = new Transactions(pool, clock, channel, origin)
  await bootstrap(tx, options.publicationNickname, clock())
  const storeId = await storeIdentity(db)
  tx.committed = 0
  const listener = await listenForCommits(options.url, channel, origin, () => { for (const l of tx.listeners) l() })
  return {
    kind: 'postgres',
    storeId,
    objects: objectsPort(db, tx, options.revisionsKeep ?? null),
    tree: treePort(db, tx),
    relations: relationsPort(db, tx),
    lists: listsPort(db),
    vocabulary: vocabularyPort(db),
    uploads: uploadsPort(db, tx),
    changes: changesPort(db),
    webhooks: webhooksPort(db, tx),
    idempotency: idempotencyPort(db, tx),
    trash: trashPort(db, tx),
    revisions: revisionsPort(db),
    schedule: schedulePort(tx),
    committedSeq: () => tx.committed,
    // a commit is on disk when COMMIT answers (synchronous_commit on): nothing waits
    durable: () => Promise.resolve(),
    applyFixtures: (plan, now) => tx.write((t) => applyPlan(t, plan, now)),
    onChange (l) {
      tx.listeners.add(l)
      return () => { tx.listeners.delete(l) }
    },
    close: async () => {
      tx.listeners.clear()
      await listener.close()
      await pool.end()
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
    const quiet = { db, at: now, record: async () => {}, recordRows: () => {} }
    const id = await insertObject(quiet, {
      object_type: 'area', nickname, status: 'on', columns: { ...DEFAULT_COLUMNS, title: 'Publication' },
      read_groups: [], write_groups: [], user_id: 0, extras: {},
    }, now)
    if (id !== PUBLICATION_ID) throw new Error(`the publication got id ${id}, expected ${PUBLICATION_ID}`)
  })
}
