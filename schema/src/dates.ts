const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/

/**
 * ISO 8601 with a zone (`Z`, `+hhmm`, `+hh:mm`) → epoch milliseconds; null when malformed, without a
 * zone, or not a real calendar instant (decisions §1).
 */
export function parseIsoDate (text: string): number | null {
  const m = ISO.exec(text)
  if (!m) return null
  const [year, month, day, hour, minute, second] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? '0')]
  const fraction = m[7] ? Math.floor(Number(m[7]) * 1000) : 0
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null
  const offset = offsetMinutes(m[8] as string) // the pattern always captures a zone
  if (offset === null) return null
  const local = Date.UTC(year, month - 1, day, hour, minute, second, fraction)
  const check = new Date(local)
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return null
  return local - offset * 60_000
}

/** Zone offset in minutes; null when out of range (RFC 3339: hours 00–23, minutes 00–59). */
function offsetMinutes (zone: string): number | null {
  if (zone === 'Z') return 0
  const digits = zone.slice(1).replace(':', '')
  const [hours, mins] = [Number(digits.slice(0, 2)), Number(digits.slice(2))]
  if (hours > 23 || mins > 59) return null
  const minutes = hours * 60 + mins
  return zone.startsWith('-') ? -minutes : minutes
}
