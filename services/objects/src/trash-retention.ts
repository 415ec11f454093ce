import type { Logger } from '@content/platform'
import type { ObjectsStore } from './core/ports.js'

export interface TrashRetentionOptions {
  /** how long a trashed object waits before it is purged (TRASH_RETENTION_DAYS) */
  retentionMs: number
  /** how often expired entries are looked for */
  everyMs: number
  now: () => number
}

/** Purges at most this many per round: one round never holds the store for long. */
const BATCH = 100

/**
 * Purges trashed objects older than the retention (decisions §16), each in its own transaction with its
 * object.deleted event; their files are released as any purge's. Two objects services may both run it:
 * a purge of an entry already gone answers 'absent'. Returns how many it purged.
 */
export async function purgeExpiredTrash (store: ObjectsStore, before: number): Promise<number> {
  let purged = 0
  for (;;) {
    const ids = await store.trash.expired(before, BATCH)
    for (const id of ids) if (await store.trash.purge(id) === 'purged') purged++
    if (ids.length < BATCH) return purged
  }
}

/** Runs purgeExpiredTrash now and then every `everyMs`; returns a stop function. */
export function startTrashRetention (store: ObjectsStore, options: TrashRetentionOptions, log: Logger): () => void {
  const run = () => {
    purgeExpiredTrash(store, options.now() - options.retentionMs).then((purged) => {
      if (purged > 0) log.info({ purged }, 'trashed objects past the retention purged')
    }, (err: unknown) => log.error({ err }, 'purging the trash failed'))
  }
  run()
  const timer = setInterval(run, options.everyMs)
  timer.unref()
  return () => clearInterval(timer)
}
