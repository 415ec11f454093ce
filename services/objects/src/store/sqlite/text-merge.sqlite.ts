import { backgroundSteps, type StepsJob } from './background-steps.sqlite.js'

/**
 * A bulk import leaves the text index in a few large segments. Every later write adds a small segment
 * that FTS5 merges up through the levels, and reaching the large ones rewrites their long lists of
 * common trigrams: in a store of a million objects a create then cost far more than at 10,000
 * (loadtest/README.md, "At scale"). Merged into one segment, the index leaves a create's merges small for a long while. FTS5's
 * `merge` with a negative page count works towards that one segment a bounded step at a time.
 */
export const MERGE_PAGES = 100
/**
 * A pause between two steps, for the writes that wait on the step's write lock. Smaller steps do not
 * shorten the longest, which reads whole lists of common trigrams (the steps of a million objects'
 * merge: loadtest/README.md, "At scale").
 */
export const MERGE_PAUSE_MS = 20
/**
 * A merge begins this long after the last import: a large store arrives as a series of imports, and
 * merging the whole index after each of them would rewrite it once per file (seconds of CPU at a
 * million objects).
 */
export const MERGE_DELAY_MS = 10_000

/**
 * The most rows one run may change, per row of the index when it begins. Merging towards one segment
 * rewrites the whole index, and any segment added meanwhile starts that over: with writes going on
 * (each batch of the text indexer adds one), a run would rewrite the index again and again and never
 * end. Rewriting an index changes two to three rows per row (its pages written and the old ones
 * deleted): a run ends after about one rewrite of what it began with (loadtest/README.md, "A merge that
 * never ended").
 */
export const MERGE_BUDGET_PER_ROW = 4

/** FTS5's `merge`: a negative page count works towards one segment; a step that merged nothing changed only itself. */
const MERGE_JOB: StepsJob = {
  statements: ["INSERT INTO objects_fts (objects_fts, rank) VALUES ('merge', @pages)"],
  params: { pages: -MERGE_PAGES },
  doneAt: 1,
  budget: `SELECT ${MERGE_BUDGET_PER_ROW} * COUNT(*) FROM objects_fts_data`,
  pauseMs: MERGE_PAUSE_MS,
}

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
 * Merges the index of the store in `file` in the background (background-steps.sqlite.ts: a worker thread
 * on a connection of its own); a failed run is reported and ends. An in-memory store is never merged.
 */
export function backgroundTextMerge (file: string, onError: (err: unknown) => void, delayMs = MERGE_DELAY_MS): TextMerge {
  const steps = backgroundSteps(file, MERGE_JOB, onError)
  return { start: () => steps.start(delayMs), settled: steps.settled, stop: steps.stop }
}
