/** The value when it is there; otherwise the test fails here, naming what was missing. */
export function must<T> (value: T, what = 'a value'): NonNullable<T> {
  if (value === undefined || value === null) throw new Error(`expected ${what}, got ${value}`)
  return value
}
