import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/**
 * A bulk import leaves the text index in a few large segments. Every later write adds a small segment
 * that FTS5 merges up through the levels, and reaching the large ones rewrites their long lists of
 * common trigrams: in a store of a million objects a create then cost about twice what it does at
 * 10,000. Merged into one segment, the index leaves a create's merges small for a long while. FTS5's
 * `merge` with a negative page count works towards that one segment a bounded step at a time.
 */
export const MERGE_PAGES = 100
/**
 * A pause between two steps, for the writes that wait on the step's write lock. Merging a million
 * objects' index (15 segments) took 185 steps: half under 10 ms, 1 % over 150 ms, the longest 0.76 s.
 * Smaller steps do not shorten the longest (25 pages: 0.53 s against 0.62 s on one store): a step
 * reads whole lists of common trigrams.
 */
export const MERGE_PAUSE_MS = 20
/**
 * A merge begins this long after the last import: a large store arrives as a series of imports, and
 * merging the whole index after each of them would rewrite it once per file (the merge of a million
 * objects' index costs about 5 s of CPU).
 */
export const MERGE_DELAY_MS = 10_000

/**
 * The merge runs in a worker thread on a connection of its own, so that reads (WAL) never wait for a
 * step; a write waits for the step in progress, as for any other writer (busy_timeout). Steps go on
 * until one changes nothing but itself (the command counts as one change), or until `stop` is set.
 * CommonJS evaluated in the worker: the driver's path comes from here, and no file needs building.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const { file, pages, pauseMs, stop } = workerData
const db = new Database(file)
try {
  db.pragma('busy_timeout = 5000')
  db.pragma('synchronous = FULL')
  const step = db.prepare("INSERT INTO objects_fts (objects_fts, rank) VALUES ('merge', ?)")
  const changes = db.prepare('SELECT total_changes()').pluck()
  while (Atomics.load(stop, 0) === 0) {
    const before = changes.get()
    step.run(-pages)
    if (changes.get() - before <= 1) break
    Atomics.wait(stop, 0, 0, pauseMs)
  }
} finally {
  db.close()
}
`
const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3')

export interface TextMerge {
  /**
   * Merges in steps, beginning `delayMs` from now, until the index is one segment; a merge under way
   * stops and waits again (what it merged stays merged).
   */
  start (): void
  /** Resolves when no merge is under way or waiting to begin. */
  settled (): Promise<void>
  /** Ends a merge under way (after its step in progress) and one waiting to begin. */
  stop (): Promise<void>
}

/**
 * Merges the index of the store in `file` in the background; a failed run is reported and ends. An
 * in-memory store (tests) has no file another connection could open: it is never merged.
 */
export function backgroundTextMerge (file: string, onError: (err: unknown) => void, delayMs = MERGE_DELAY_MS): TextMerge {
  let timer: NodeJS.Timeout | null = null
  let run: Int32Array | null = null
  let waiting: Array<() => void> = []
  const notify = () => {
    if (timer !== null || run !== null) return
    for (const resolve of waiting) resolve()
    waiting = []
  }
  const halt = () => {
    if (timer !== null) clearTimeout(timer)
    timer = null
    if (run !== null) {
      Atomics.store(run, 0, 1)
      Atomics.notify(run, 0)
    }
  }
  const begin = () => {
    timer = null
    const stop = new Int32Array(new SharedArrayBuffer(4))
    run = stop
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver: DRIVER, pages: MERGE_PAGES, pauseMs: MERGE_PAUSE_MS, stop } })
    worker.on('error', onError)
    worker.on('exit', () => {
      if (run === stop) run = null
      notify()
    })
    // never what keeps a process alive
    worker.unref()
  }
  const settled = () => (timer === null && run === null ? Promise.resolve() : new Promise<void>((resolve) => { waiting.push(resolve) }))
  return {
    start () {
      if (file === ':memory:') return
      halt()
      timer = setTimeout(begin, delayMs).unref()
    },
    settled,
    stop () {
      halt()
      notify()
      return settled()
    },
  }
}
