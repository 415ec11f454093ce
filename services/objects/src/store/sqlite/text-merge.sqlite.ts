import type Database from 'better-sqlite3'

/**
 * A bulk import leaves the text index in a few large segments. Every later write adds a small segment
 * that FTS5 merges up through the levels, and reaching the large ones rewrites their long lists of
 * common trigrams: in a store of a million objects a create then cost about twice what it does at
 * 10,000. Merged into one segment, the index leaves a create's merges small for a long while. FTS5's
 * `merge` with a negative page count works towards that one segment a bounded step at a time.
 */
export const MERGE_PAGES = 100
/**
 * Between two steps the event loop serves requests. Merging a million objects' index (15 segments) took
 * 185 steps: half under 10 ms, 1 % over 150 ms, the longest 0.76 s, during which requests wait.
 */
export const MERGE_PAUSE_MS = 20
/**
 * A merge begins this long after the last import: a large store arrives as a series of imports, and
 * merging the whole index after each of them would rewrite it once per file (the merge of a million
 * objects' index costs about 5 s of CPU).
 */
export const MERGE_DELAY_MS = 10_000

/** One step of the merge, in its own transaction; answers whether it changed anything. */
export function mergeStep (db: Database.Database, pages = MERGE_PAGES): boolean {
  const changes = db.prepare('SELECT total_changes()').pluck()
  const before = changes.get() as number
  db.prepare("INSERT INTO objects_fts (objects_fts, rank) VALUES ('merge', ?)").run(-pages)
  // the command counts as one change itself
  return (changes.get() as number) - before > 1
}

export interface TextMerge {
  /**
   * Merges in steps, beginning `delayMs` from now, until the index is one segment; a merge under way
   * waits again (what it merged stays merged).
   */
  start (): void
  /** Resolves when no merge is under way. */
  settled (): Promise<void>
  stop (): void
}

/** Runs the merge in the background, a step at a time; a failed step is reported and ends the run. */
export function backgroundTextMerge (db: Database.Database, onError: (err: unknown) => void, delayMs = MERGE_DELAY_MS): TextMerge {
  let timer: NodeJS.Timeout | null = null
  let waiting: Array<() => void> = []
  const finish = () => {
    timer = null
    for (const resolve of waiting) resolve()
    waiting = []
  }
  const step = () => {
    let more = false
    try {
      more = db.open && mergeStep(db)
    } catch (err) {
      onError(err)
    }
    if (more) schedule()
    else finish()
  }
  // never what keeps a process alive
  const schedule = (ms = MERGE_PAUSE_MS) => { timer = setTimeout(step, ms).unref() }
  return {
    start () {
      if (timer !== null) clearTimeout(timer)
      schedule(delayMs)
    },
    settled: () => (timer === null ? Promise.resolve() : new Promise((resolve) => { waiting.push(resolve) })),
    stop () {
      if (timer !== null) clearTimeout(timer)
      finish()
    },
  }
}
