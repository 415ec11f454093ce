/** Random choices with an injectable source, so tests can pin them. */

/** One element of a non-empty list, chosen by a random number in [0, 1). */
export function pick<T> (items: readonly T[], random: () => number = Math.random): T {
  if (items.length === 0) throw new RangeError('cannot pick from an empty list')
  return items[Math.min(items.length - 1, Math.floor(random() * items.length))]!
}
