/**
 * Runs the work given to it one at a time, in the order given: each after the one before has settled and
 * an event-loop turn has passed, so that what the one before answered has left (its reply written to the
 * socket) before the next begins. A failure is its caller's and does not stop the ones after it.
 */
export function oneAtATime (): <T>(work: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve()
  return <T>(work: () => Promise<T>): Promise<T> => {
    const run = last.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(work)
    last = run.catch(() => undefined)
    return run
  }
}
