import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/**
 * How often the worker copies the WAL into the store. A soak's writes (about ten a second) fill SQLite's
 * automatic threshold (1,000 pages) every 20-70 s, and that checkpoint — copying up to 4 MiB and syncing
 * the store's file — ran inside a commit on the service's thread: its periodic stalls (loadtest/README.md,
 * "Soak: stalls and checkpoints"). On a connection of its own a PASSIVE checkpoint blocks no reader and
 * no writer, and a second's worth of WAL is a small copy.
 */
export const CHECKPOINT_EVERY_MS = 1_000
/**
 * The service's connection checkpoints itself only past this many WAL pages (40 MiB): when the worker
 * falls that far behind (it died, or readers held old snapshots), the WAL is still bounded.
 */
export const FALLBACK_CHECKPOINT_PAGES = 10_000

/** CommonJS evaluated in the worker: the driver's path comes from here, and no file needs building. */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const { file, everyMs, stop } = workerData
const db = new Database(file)
try {
  // never waits for the write lock: PASSIVE copies what no reader still needs, and the next round the rest
  db.pragma('busy_timeout = 0')
  while (Atomics.wait(stop, 0, 0, everyMs) === 'timed-out') {
    try {
      db.pragma('wal_checkpoint(PASSIVE)')
    } catch (err) {
      // another connection's checkpoint in progress: this round is its
      if (!String(err.code).startsWith('SQLITE_BUSY')) throw err
    }
  }
} finally {
  db.close()
}
`
const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3')

export interface WalCheckpointer {
  /** Ends the worker (after its checkpoint in progress) and resolves once its connection is closed. */
  stop (): Promise<void>
}

/**
 * Checkpoints the WAL of the store in `file` every `everyMs` in a worker thread; a failed worker is
 * reported, and the service's own fallback checkpoint (`FALLBACK_CHECKPOINT_PAGES`) bounds the WAL
 * meanwhile. The caller sets that fallback on its connection. An in-memory store has no WAL: nothing runs.
 */
export function walCheckpointer (file: string, onError: (err: unknown) => void, everyMs = CHECKPOINT_EVERY_MS): WalCheckpointer {
  if (file === ':memory:') return { stop: () => Promise.resolve() }
  const stop = new Int32Array(new SharedArrayBuffer(4))
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver: DRIVER, everyMs, stop } })
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
  worker.on('error', onError)
  // never what keeps a process alive
  worker.unref()
  return {
    stop () {
      // the caller awaits its exit: held open until then, or a process with nothing else to do exits mid-close
      worker.ref()
      Atomics.store(stop, 0, 1)
      Atomics.notify(stop, 0)
      return exited
    },
  }
}
