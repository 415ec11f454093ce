/**
 * Stand-in for the `k6` module, aliased in loadtest/vitest.config.ts. Wiring smoke tests only: it
 * records checks and sleeps; it does not emulate executors, VUs or thresholds.
 */
export interface CheckResult { name: string, ok: boolean }
export const recorded = { checks: [] as CheckResult[], sleeps: [] as number[] }

export function check<T> (value: T, sets: Record<string, (v: T) => boolean>): boolean {
  let all = true
  for (const [name, fn] of Object.entries(sets)) {
    const ok = Boolean(fn(value))
    recorded.checks.push({ name, ok })
    all &&= ok
  }
  return all
}

export function sleep (seconds: number): void { recorded.sleeps.push(seconds) }

export function fail (message?: string): never { throw new Error(message) }

export function reset (): void {
  recorded.checks.length = 0
  recorded.sleeps.length = 0
}
