import type { Logger } from '@content/platform'
import type { ChangeFeed } from './core/change-feed.js'
import { coalesced } from './core/coalesced.js'
import type { ObjectsStore } from './core/ports.js'
import type { Status } from './core/types.js'

export interface ScheduledPublicationOptions {
  /** whose windows are announced (announcedStatuses: none with PUBLICATION_WINDOW_FILTER off) */
  statuses: Status[]
  now: () => number
  /** rounds also run this often: a boundary whose timer fired early, or was armed in another process */
  everyMs: number
}

export interface ScheduledPublication {
  /** runs a round now (folded into one already running) and resolves when none runs */
  round(): Promise<void>
  stop(): void
}

/**
 * Announces publication windows opening and closing (decisions §16; core/scheduled-publication.ts): a
 * round at start (what a downtime missed arrives late, once), one at each boundary (the feed's clock
 * message, armed at the next boundary and re-armed after every write) and one every `everyMs`. Rounds of
 * two processes on one store announce each boundary once: the store's watermark decides.
 */
export function startScheduledPublication (store: ObjectsStore, feed: ChangeFeed, options: ScheduledPublicationOptions, log: Logger): ScheduledPublication {
  const rounds = coalesced(async () => {
    const announced = await store.schedule.announce(options.now(), options.statuses)
    if (announced > 0) log.info({ announced }, 'publication windows opened or closed')
  }, (err) => log.error({ err }, 'announcing publication windows failed'))
  const round = () => {
    rounds.run()
    return rounds.idle()
  }
  const unsubscribe = feed.subscribe((message) => { if (message.clock) rounds.run() })
  rounds.run()
  const timer = setInterval(() => rounds.run(), options.everyMs)
  timer.unref()
  return {
    round,
    stop () {
      clearInterval(timer)
      unsubscribe()
    },
  }
}
