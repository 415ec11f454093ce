import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { traceStatements, present } from '@content/platform'
import Database from 'better-sqlite3'
import type { FixturePlan } from '../../core/fixtures.plan.js'
import { DEFAULT_COLUMNS } from '../../core/object-input.js'
import type { ObjectsStore } from '../../core/ports.js'
import { PUBLICATION_ID } from '../../core/publication.js'
import type { StoreOptions } from '../store-options.js'
import { Commits } from './commits.sqlite.js'
import { applyPlan } from './fixtures.sqlite.js'
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
import { schedulePort } from './schedule.sqlite.js'
import { trashPort } from './trash.sqlite.js'
import { treePort } from './tree.sqlite.js'
import { uploadsPort } from './uploads.sqlite.js'
import { walSync } from './wal-sync.sqlite.js'
import { webhooksPort } from './webhooks.sqlite.js'
import { insertObject } from './writes.sqlite.js'

/** Opens (creating when needed) the SQLite store in `file` and bootstraps the publication. */
export function openSqliteStore (file: string, options: StoreOptions): ObjectsStore {
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
  const commits = new Commits(st, clock, wal)
  const textFailed = (err: unknown) => onBackgroundError(err, 'indexing new text failed; the next write tries again')
  // an import's texts, many at once, go to a worker; when it ends, the indexer looks again
  const catchUp = textCatchUp(file, textFailed, () => texts.schedule())
  const texts = textIndexer(st, commits, textFailed, catchUp)
  // every write that may leave text pending records a change; a start finds what the last run left
  commits.listeners.add(texts.schedule)
  texts.schedule()
  return {
    kind: 'sqlite',
    storeId,
    objects: objectsPort(st, commits, options.revisionsKeep ?? null),
    tree: treePort(st, commits),
    relations: relationsPort(st, commits),
    lists: listsPort(st),
    vocabulary: vocabularyPort(st),
    uploads: uploadsPort(st, commits),
    changes: changesPort(st, () => commits.visibleUpTo()),
    webhooks: webhooksPort(st, commits),
    idempotency: idempotencyPort(st, commits),
    trash: trashPort(st, commits),
    revisions: revisionsPort(st),
    schedule: schedulePort(st, commits),
    committedSeq: () => commits.committed,
    // what an answer saw commits at the end of its turn, then is flushed
    durable: () => commits.settled().then(wal.sync),
    applyFixtures: (plan, now) => importFixtures(st, commits, textMerge, plan, now),
    onChange (listener) {
      commits.listeners.add(listener)
      return () => { commits.listeners.delete(listener) }
    },
    close: async () => {
      commits.commitTurn()
      commits.listeners.clear()
      await textMerge.stop()
      await catchUp?.stop()
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

/** Writes a checked fixtures plan in one transaction, then merges the text index it grew. */
async function importFixtures (st: Statements, commits: Commits, textMerge: TextMerge, plan: FixturePlan, now: number): Promise<Record<string, number>> {
  // Foreign-key look-ups, two for each tree, closure and relation row, are about a tenth of an import, and
  // applyPlan checks what they would. The setting is the connection's and cannot change inside a
  // transaction (the turn's open one commits first); nothing else runs on the connection until it is back on.
  // The import's commit would also copy its WAL into the store (SQLite's automatic checkpoint, hundreds of
  // megabytes, about half a second a file of 100,000): it is left to the next commit of any connection, as
  // a rule the text worker's, on the other core.
  commits.commitTurn()
  st.db.pragma('foreign_keys = OFF')
  const checkpointAt = st.db.pragma('wal_autocheckpoint', { simple: true }) as number
  st.db.pragma('wal_autocheckpoint = 0')
  let applied: Promise<Record<string, number>>
  try {
    applied = commits.writeNow((_record, at, appended) => {
      const { refs, lastSeq } = applyPlan(st, plan, now, at)
      appended(lastSeq)
      return refs
    })
  } finally {
    st.db.pragma(`wal_autocheckpoint = ${checkpointAt}`)
    st.db.pragma('foreign_keys = ON')
  }
  const refs = await applied
  textMerge.start()
  return refs
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
    }, now, () => {})
    if (id !== PUBLICATION_ID) throw new Error(`the publication got id ${id}, expected ${PUBLICATION_ID}`)
  })()
}
