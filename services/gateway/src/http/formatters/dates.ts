const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterFor (timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit',
      hour: '2-digit', minute: '2-digit', second: '2-digit',
    })
    formatters.set(timeZone, f)
  }
  return f
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0')

/** Milliseconds since the epoch → `YYYY-MM-DDThh:mm:ss+hhmm` in `timeZone` (decisions §1). */
export function formatDate (ms: number, timeZone = 'UTC'): string {
  const seconds = Math.floor(ms / 1000) * 1000
  const parts: Record<string, number> = {}
  for (const p of formatterFor(timeZone).formatToParts(new Date(seconds))) {
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
