interface ZoneFormat {
  parts: Intl.DateTimeFormat
  /** the zone is UTC under another name: no offset to look up, ever */
  utc: boolean
}

const zones = new Map<string, ZoneFormat>()

function zoneFormat (timeZone: string): ZoneFormat {
  let z = zones.get(timeZone)
  if (!z) {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit',
      hour: '2-digit', minute: '2-digit', second: '2-digit',
    })
    z = { parts, utc: parts.resolvedOptions().timeZone === 'UTC' }
    zones.set(timeZone, z)
  }
  return z
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0')

/**
 * UTC without Intl (formatToParts dominates the cost of a list): the same text as the general path
 * for four-digit years; other years (and invalid instants) are left to it.
 */
function formatUtc (seconds: number): string | undefined {
  const d = new Date(seconds)
  const year = d.getUTCFullYear()
  if (!(year >= 1000 && year <= 9999)) return undefined
  return `${year}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}+0000`
}

/** Milliseconds since the epoch → `YYYY-MM-DDThh:mm:ss+hhmm` in `timeZone` (decisions §1). */
export function formatDate (ms: number, timeZone = 'UTC'): string {
  const seconds = Math.floor(ms / 1000) * 1000
  const zone = zoneFormat(timeZone)
  return (zone.utc ? formatUtc(seconds) : undefined) ?? formatInZone(seconds, zone.parts)
}

function formatInZone (seconds: number, format: Intl.DateTimeFormat): string {
  const parts: Record<string, number> = {}
  for (const p of format.formatToParts(new Date(seconds))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value)
  }
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts
  const offsetMinutes = Math.round((Date.UTC(year, month - 1, day, hour, minute, second) - seconds) / 60_000)
  const sign = offsetMinutes < 0 ? '-' : '+'
  const yyyy = year < 0 ? `-${pad(year, 6)}` : pad(year, 4)
  return `${yyyy}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}` +
    `${sign}${pad(Math.trunc(Math.abs(offsetMinutes) / 60))}${pad(Math.abs(offsetMinutes) % 60)}`
}

/** Absent timestamps are null on output. */
export function formatOptionalDate (ms: number | null | undefined, timeZone = 'UTC'): string | null {
  return ms === undefined || ms === null ? null : formatDate(ms, timeZone)
}
