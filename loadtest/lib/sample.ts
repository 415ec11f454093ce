/** Random choices with an injectable source, so tests can pin them. */

/** One element of a non-empty list, chosen by a random number in [0, 1). */
export function pick<T> (items: readonly T[], random: () => number = Math.random): T {
  if (items.length === 0) throw new RangeError('cannot pick from an empty list')
  const item = items[Math.min(items.length - 1, Math.floor(random() * items.length))]
  if (item === undefined) throw new RangeError('the random source answered outside [0, 1)')
  return item
}
