/**
 * The value, for what the code's own logic guarantees is there (a regex group that always takes part, a row
 * just written, an entry just set): when the guarantee breaks, this fails at once, naming what was missing,
 * rather than a TypeError further on.
 */
export function present<T> (value: T, what: string): NonNullable<T> {
  if (value === undefined || value === null) throw new Error(`${what} is missing`)
  return value
}
