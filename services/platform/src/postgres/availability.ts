import type { Logger } from 'pino'
import type { Postgres } from './database.js'

export interface AvailabilityOptions {
  log: Logger
  /** told every change: false while the database cannot be reached, true once it answers again */
  onChange: (available: boolean) => void
  /** ms between checks while the database answers (an idle service still notices an outage) */
  upIntervalMs?: number
  /** ms between checks while it does not (the service is back soon after the database) */
  downIntervalMs?: number
}

export interface Availability {
  readonly available: boolean
  stop(): void
}

/**
 * Follows whether the database can be reached: a check (SELECT 1 through the pool) every few seconds, and
 * at once when a call finds it unreachable. A service reports this as its readiness (gRPC health), so it
 * is taken out of rotation during an outage and put back by itself.
 */
export function followAvailability (db: Postgres, options: AvailabilityOptions): Availability {
  const upMs = options.upIntervalMs ?? 2_000
  const downMs = options.downIntervalMs ?? 500
  let available = true
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let checking = false

  const set = (now: boolean) => {
    if (now === available || stopped) return
    available = now
    if (now) options.log.info('the database answers again; serving')
    else options.log.warn('the database cannot be reached; not serving until it answers')
    options.onChange(now)
  }
  const schedule = () => {
    if (stopped) return
    clearTimeout(timer)
    timer = setTimeout(check, available ? upMs : downMs)
    timer.unref()
  }
  async function check (): Promise<void> {
    if (checking || stopped) return
    checking = true
    try {
      set(await db.ping())
    } finally {
      checking = false
      schedule()
    }
  }
  const unsubscribe = db.onUnreachable(() => {
    set(false)
    schedule()
  })
  schedule()
  return {
    get available () { return available },
    stop () {
      stopped = true
      clearTimeout(timer)
      unsubscribe()
    },
  }
}
