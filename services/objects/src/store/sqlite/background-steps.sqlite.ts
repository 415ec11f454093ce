import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/**
 * Work on the store in steps, in a worker thread on a connection of its own, so that reads (WAL) never
 * wait for a step and the service's thread keeps its core; a write waits for the step in progress, as for
 * any other writer (busy_timeout). Each step is one transaction of `statements`, run with `params`;
 * steps go on until one changes no more than `doneAt` rows (`total_changes()`, which counts what a
 * virtual table writes into its own tables too), until the run has changed more rows than its `budget`
 * allowed when it began, until `stop` is set, or until a step has waited `BUSY_MS` for the write lock
 * (an import holds it for seconds): that run ends quietly, and its owner, told of the end, starts
 * another when it sees fit.
 * CommonJS evaluated in the worker: the driver's path comes from here, and no file needs building.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const { file, statements, params, doneAt, budget, pauseMs, busyMs, stop } = workerData
const db = new Database(file)
try {
  db.pragma('busy_timeout = ' + busyMs)
  db.pragma('synchronous = FULL')
  const prepared = statements.map((sql) => db.prepare(sql))
  const step = db.transaction(() => { for (const s of prepared) s.run(params) })
  const changes = db.prepare('SELECT total_changes()').pluck()
  const allowed = budget === undefined ? Infinity : db.prepare(budget).pluck().get()
  let changed = 0
  while (Atomics.load(stop, 0) === 0) {
    const before = changes.get()
    try {
      step.immediate()
    } catch (err) {
      if (err.code === 'SQLITE_BUSY') break
      throw err
    }
    const stepChanged = changes.get() - before
    changed += stepChanged
    if (stepChanged <= doneAt || changed > allowed) break
    Atomics.wait(stop, 0, 0, pauseMs)
  }
} finally {
  db.close()
}
`
const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3')
/** How long a step waits for the write lock before its run ends. */
export const BUSY_MS = 5_000

export interface StepsJob {
  statements: string[]
  params: Record<string, number | string>
  /** the step that changes this many rows or fewer is the last */
  doneAt: number
  /**
   * a statement answering the most rows a run may change, read as it begins: a bound on its work that
   * the store's other writes during the run cannot move (none unless given)
   */
  budget?: string
  /** a pause between two steps, for the writes that wait on a step's write lock */
  pauseMs: number
  /** how long a step waits for the write lock (`BUSY_MS` unless given) */
  busyMs?: number
}

export interface BackgroundSteps {
  /** Runs the steps, beginning `delayMs` from now; a run under way stops and waits again (what it did stays done). */
  start (delayMs?: number): void
  /** True from `start` until the run has ended. */
  busy (): boolean
  /** Resolves when no run is under way or waiting to begin. */
  settled (): Promise<void>
  /** Ends a run under way (after its step in progress) and one waiting to begin. */
  stop (): Promise<void>
}

/**
 * Runs `job` on the store in `file` in the background; a failed run is reported and ends, and `onEnd`
 * hears of every end. An in-memory store (tests) has no file another connection could open: it never runs.
 */
export function backgroundSteps (file: string, job: StepsJob, onError: (err: unknown) => void, onEnd: () => void = () => {}): BackgroundSteps {
  let timer: NodeJS.Timeout | null = null
  let run: Int32Array | null = null
  let worker: Worker | null = null
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
    const started = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver: DRIVER, busyMs: BUSY_MS, ...job, stop } })
    worker = started
    started.on('error', onError)
    started.on('exit', () => {
      if (run === stop) run = null
      if (worker === started) worker = null
      notify()
      onEnd()
    })
    // never what keeps a process alive while it runs
    started.unref()
  }
  const settled = () => (timer === null && run === null ? Promise.resolve() : new Promise<void>((resolve) => { waiting.push(resolve) }))
  return {
    start (delayMs = 0) {
      if (file === ':memory:') return
      halt()
      timer = setTimeout(begin, delayMs).unref()
    },
    busy: () => timer !== null || run !== null,
    settled,
    stop () {
      halt()
      notify()
      // ...but one told to stop is waited for: a process with nothing else to do would exit before the
      // store's close went on (its connection closed, its WAL flushed), the caller's await never answered
      worker?.ref()
      return settled()
    },
  }
}
