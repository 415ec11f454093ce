import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { traceStatements, present } from '@content/platform'
import Database from 'better-sqlite3'
import { composeStore } from '../../core/composed-store.js'
import { DEFAULT_COLUMNS } from '../../core/object-input.js'
import type { ObjectsStore, StoreAdapter } from '../../core/ports.js'
import { PUBLICATION_ID } from '../../core/publication.js'
import { runStepsNow, type ImportWork } from '../../core/unit-of-work.js'
import type { StoreOptions } from '../store-options.js'
import { Commits } from './commits.sqlite.js'
import { SqliteImportSteps } from './fixtures.sqlite.js'
import { idempotencyPort } from './idempotency.sqlite.js'
import { objectsPort, vocabularyPort } from './objects.sqlite.js'
import { changesPort } from './outbox.sqlite.js'
import { relationsPort } from './relations.sqlite.js'
import { listsPort } from './select.sqlite.js'
import { Statements } from './rows.sqlite.js'
import { migrateObjectsFile } from './migrations.sqlite.js'
import { unfoldedLowerCase } from './text-index.sqlite.js'
import { applyPragmas, registerFunctions } from './schema.sqlite.js'
import { backgroundTextMerge, type TextMerge } from './text-merge.sqlite.js'
import { textCatchUp, textIndexer } from './text-indexer.sqlite.js'
import { revisionsPort } from './revisions.sqlite.js'
import { trashPort } from './trash.sqlite.js'
import { treePort } from './tree.sqlite.js'
import { uploadsPort } from './uploads.sqlite.js'
import { walSync } from './wal-sync.sqlite.js'
import { FALLBACK_CHECKPOINT_PAGES, walCheckpointer } from './wal-checkpoint.sqlite.js'
import { webhooksPort } from './webhooks.sqlite.js'
import { SqliteSteps } from './write-steps.sqlite.js'
import { insertObject } from './writes.sqlite.js'

/** Opens (creating when needed) the SQLite store in `file` and bootstraps the publication. */
export function openSqliteStore (file: string, options: StoreOptions): ObjectsStore {
  return composeStore(openSqliteAdapter(file, options), { revisionsKeep: options.revisionsKeep ?? null })
}

/** The adapter alone: its reads and steps, without core's composition (composeStore). */
export function openSqliteAdapter (file: string, options: StoreOptions): StoreAdapter {
  const db = openDatabase(file, options.sqliteCacheMb)
  const st = new Statements(db)
  const clock = options.now ?? Date.now
  bootstrap(st, options.publicationNickname, clock())
  const storeId = storeIdentity(st)
  // a store loaded in bulk before this ran may hold several large segments: merged from the start
  const onBackgroundError = options.onBackgroundError ?? (() => {})
  const textMerge = backgroundTextMerge(file, (err) => onBackgroundError(err, 'text index merge failed; the next import starts it again'))
  textMerge.start()
  const wal = walSync(db, file)
  // checkpoints off the service's thread; its connection checkpoints only when the worker falls far behind
  const checkpoints = walCheckpointer(file, (err) => onBackgroundError(err, 'WAL checkpoints failed; the service checkpoints itself past the fallback'))
  if (file !== ':memory:') db.pragma(`wal_autocheckpoint = ${FALLBACK_CHECKPOINT_PAGES}`)
  const commits = new Commits(st, clock, wal)
  const textFailed = (err: unknown) => onBackgroundError(err, 'indexing new text failed; the next write tries again')
  // an import's texts, many at once, go to a worker; when it ends, the indexer looks again
  const catchUp = textCatchUp(file, textFailed, () => texts.schedule())
  const texts = textIndexer(st, commits, textFailed, catchUp)
  // every write that may leave text pending records a change; a start finds what the last run left
  commits.listeners.add(texts.schedule)
  texts.schedule()
  // every write runs one after the other on the connection, each synchronously in its savepoint
  const steps = new SqliteSteps(st)
  return {
    kind: 'sqlite',
    storeId,
    objects: objectsPort(st),
    tree: treePort(st),
    relations: relationsPort(st),
    lists: listsPort(st),
    vocabulary: vocabularyPort(st),
    uploads: uploadsPort(st, commits),
    changes: changesPort(st, () => commits.visibleUpTo()),
    webhooks: webhooksPort(st, commits),
    idempotency: idempotencyPort(st, commits),
    trash: trashPort(st),
    revisions: revisionsPort(st),
    write: (work) => commits.write((record) => {
      steps.recording = record
      return runStepsNow(work(steps))
    }),
    importInBulk: (work) => importInBulk(st, commits, textMerge, work),
    importLimit: null,
    committedSeq: () => commits.committed,
    // what an answer saw commits at the end of its turn, then is flushed
    durable: () => commits.settled().then(wal.sync),
    onChange (listener) {
      commits.listeners.add(listener)
      return () => { commits.listeners.delete(listener) }
    },
    close: async () => {
      commits.commitTurn()
      commits.listeners.clear()
      await textMerge.stop()
      await catchUp?.stop()
      await checkpoints.stop()
      await texts.flush().catch((err) => onBackgroundError(err, 'indexing new text failed; the next start tries again'))
      // writes still waiting for their flush are answered before the descriptor goes (a failure was theirs)
      await wal.sync().catch(() => {})
      wal.close()
      db.close()
    },
  }
}

/**
 * The connection, its settings, and the schema with the indexes and counts kept beside it, at this
 * release's version (open-store.ts checks the version first when the service must not migrate).
 */
function openDatabase (file: string, cacheMb: number | undefined): Database.Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
  const db = traceStatements(new Database(file))
  applyPragmas(db, cacheMb)
  registerFunctions(db)
  migrateObjectsFile(db, 'migrate')
  // measured at start, rather than by the first search that needs it
  unfoldedLowerCase()
  return db
}

/** Runs a fixtures import in one transaction of its own, then merges the text index it grew. */
async function importInBulk<T> (st: Statements, commits: Commits, textMerge: TextMerge, work: ImportWork<T>): Promise<T> {
  // Foreign-key look-ups, two for each tree, closure and relation row, are about a tenth of an import, and
  // applyPlan checks what they would. The setting is the connection's and cannot change inside a
  // transaction (the turn's open one commits first); nothing else runs on the connection until it is back on.
  // The import's commit would also copy its WAL into the store (SQLite's automatic checkpoint, hundreds of
  // megabytes, about half a second a file of 100,000): it is left to the checkpoint worker
  // (wal-checkpoint.sqlite.ts), on the other core.
  commits.commitTurn()
  st.db.pragma('foreign_keys = OFF')
  const checkpointAt = st.db.pragma('wal_autocheckpoint', { simple: true }) as number
  st.db.pragma('wal_autocheckpoint = 0')
  let applied: Promise<T>
  try {
    applied = commits.writeNow((_record, at, appended) => {
      const steps = new SqliteImportSteps(st, at)
      const answer = runStepsNow(work(steps))
      steps.finish()
      appended(steps.lastSeq)
      return answer
    })
  } finally {
    st.db.pragma(`wal_autocheckpoint = ${checkpointAt}`)
    st.db.pragma('foreign_keys = ON')
  }
  const answer = await applied
  textMerge.start()
  return answer
}

/** The store's identity, made once and kept with the data. */
function storeIdentity (st: Statements): string {
  st.run("INSERT INTO meta (key, value) VALUES ('store_id', @id) ON CONFLICT (key) DO NOTHING", { id: randomUUID() })
  return present(st.one<{ value: string }>("SELECT value FROM meta WHERE key = 'store_id'"), 'the store_id row').value
}

/** An empty store gets the publication: object 1, an area, status on. */
function bootstrap (st: Statements, nickname: string, now: number): void {
  if (st.one('SELECT 1 FROM objects WHERE id = @id', { id: PUBLICATION_ID })) return
  if (st.one('SELECT 1 FROM objects LIMIT 1')) throw new Error('the store has objects but no publication (object 1)')
  st.db.transaction(() => {
    // the publication is there before anyone follows the store: no event
    const id = insertObject(st, {
      object_type: 'area', nickname, status: 'on', columns: { ...DEFAULT_COLUMNS, title: 'Publication' },
      read_groups: [], write_groups: [], user_id: 0, extras: {},
    }, now)
    if (id !== PUBLICATION_ID) throw new Error(`the publication got id ${id}, expected ${PUBLICATION_ID}`)
  })()
}
