import type { RevisionsKeep } from './revisions.js'
import { IMPORT_STEPS, WRITE_STEPS, type ImportSteps, type Step, type WriteSteps } from './write-steps.js'

/*
 * A write is one unit of work: core composes it from an adapter's steps (write-steps.ts), the adapter
 * runs it inside one transaction. A step answers at once where its store is synchronous (SQLite) and a
 * promise where it is not (PostgreSQL, MongoDB); core is written once for both as generator functions,
 * each step taken with `yield*`, and `runSteps` drives them: synchronously to the end while steps answer
 * at once, awaiting only the steps that answer promises. So SQLite's writes stay synchronous inside their
 * savepoint (no other write, no read, can run between two steps of one write), and the others await
 * exactly what they must. loadtest/README.md ("Writes composed once") has the cost of each shape.
 */

export type { Step }

/** A composed write, or part of one: its steps in order, ending with its answer. */
export type Steps<T> = Generator<unknown, T, unknown>

/** Each step of `S` as core takes it: `yield* tx.placeChild(…)` answers the placed row. */
export type Taken<S> = {
  readonly [K in keyof S]: S[K] extends (...args: infer A) => Step<infer R> ? (...args: A) => Steps<R> : never
}

/** What the sequences read of the store's settings. */
export interface WriteSettings {
  /** REVISIONS_KEEP: revisions kept per object (null: all, 0: none) */
  revisionsKeep: RevisionsKeep
}

/** A transaction as core composes it: the adapter's steps, each taken with `yield*`, and the store's settings. */
export type Tx = Taken<WriteSteps> & { readonly settings: WriteSettings }
export type ImportTx = Taken<ImportSteps> & { readonly settings: WriteSettings }

/**
 * A write an adapter runs in one transaction: called again from nothing if the adapter retries the
 * transaction (MongoDB's transient errors, PostgreSQL's serialization failures), so it keeps no state
 * outside what it answers.
 */
export type Work<T> = (steps: WriteSteps) => Steps<T>
export type ImportWork<T> = (steps: ImportSteps) => Steps<T>

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'

/**
 * Runs composed steps: synchronously while every step answers at once, then awaiting each step that
 * answers a promise. A step's failure (thrown or rejected) is thrown into the composition at that step.
 */
export function runSteps<T> (steps: Steps<T>): T | Promise<T> {
  let next = steps.next()
  while (next.done !== true) {
    if (isThenable(next.value)) return finish(steps, next.value)
    next = steps.next(next.value)
  }
  return next.value
}

async function finish<T> (steps: Steps<T>, first: PromiseLike<unknown>): Promise<T> {
  let pending = first
  for (;;) {
    let settled: { ok: true, value: unknown } | { ok: false, err: unknown }
    try {
      settled = { ok: true, value: await pending }
    } catch (err) {
      settled = { ok: false, err }
    }
    // a rejected step fails at its `yield*`; what the composition throws leaves from here
    let next = settled.ok ? steps.next(settled.value) : steps.throw(settled.err)
    while (next.done !== true && !isThenable(next.value)) next = steps.next(next.value)
    if (next.done === true) return next.value
    pending = next.value as PromiseLike<unknown>
  }
}

/** Runs composed steps where every step must answer at once (SQLite's transaction is synchronous). */
export function runStepsNow<T> (steps: Steps<T>): T {
  const result = runSteps(steps)
  if (isThenable(result)) throw new Error('a synchronous store answered a step with a promise')
  return result
}

/**
 * The taken form of an adapter's steps: one generator function per step, which yields the step's answer
 * to `runSteps`. A step not taken with `yield*` does nothing in every store, so a test of any store finds
 * it. Built once per class of steps object, its methods reading the object they wrap.
 */
function takenClass<S extends object> (names: readonly (keyof S & string)[]): new (impl: S, settings: WriteSettings) => Taken<S> & { readonly settings: WriteSettings } {
  class TakenSteps {
    constructor (readonly impl: S, readonly settings: WriteSettings) {}
  }
  for (const name of names) {
    Object.defineProperty(TakenSteps.prototype, name, {
      value: function * (this: TakenSteps, ...args: unknown[]): Steps<unknown> {
        return yield (this.impl[name] as (...a: unknown[]) => unknown)(...args)
      },
    })
  }
  return TakenSteps as unknown as new (impl: S, settings: WriteSettings) => Taken<S> & { readonly settings: WriteSettings }
}

const TakenWrites = takenClass<WriteSteps>(WRITE_STEPS)
const TakenImports = takenClass<ImportSteps>(IMPORT_STEPS)

/** A store's steps objects are often one for its life (SQLite's): their taken form is kept beside them. */
const takenOf = new WeakMap<object, { settings: WriteSettings, tx: unknown }>()

export function txOf (steps: WriteSteps, settings: WriteSettings): Tx {
  const known = takenOf.get(steps)
  if (known !== undefined && known.settings === settings) return known.tx as Tx
  const tx = new TakenWrites(steps, settings)
  takenOf.set(steps, { settings, tx })
  return tx
}

export function importTxOf (steps: ImportSteps, settings: WriteSettings): ImportTx {
  return new TakenImports(steps, settings)
}
