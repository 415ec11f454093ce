import type { Logger } from '@content/platform'
import { present } from '@content/platform'
import type { MediaStore } from '../store/media.store.js'
import type { ObjectsPort } from './objects.port.js'

/** Keys asked about per FilesInUse call (the objects service answers at most 1,000). */
const PAGE = 500

export interface CollectorOptions {
  store: MediaStore
  objects: Pick<ObjectsPort, 'filesInUse'>
  log: Logger
  now: () => number
  /** MEDIA_GC_INTERVAL, ms between sweeps */
  intervalMs: number
  /** MEDIA_GC_GRACE, ms: anything stored more recently is spared (its upload may not be registered yet) */
  graceMs: number
}

export interface SweepCounts {
  scanned: number
  removed: number
}

/**
 * Removes originals no object and no unexpired upload uses, with their thumbnails (decisions §12).
 * Only keys idle for the grace are asked about; removal is conditional on the key still being idle,
 * so bytes uploaded again meanwhile survive.
 */
export class MediaCollector {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<unknown> = Promise.resolve()
  private stopped = false

  constructor (private readonly o: CollectorOptions) {}

  async sweep (): Promise<SweepCounts> {
    const { store, objects } = this.o
    const before = this.o.now() - this.o.graceMs
    const counts: SweepCounts = { scanned: 0, removed: 0 }
    let after = ''
    for (;;) {
      const keys = await store.originals.idle(before, after, PAGE)
      if (keys.length === 0) break
      counts.scanned += keys.length
      const used = new Set(await objects.filesInUse(keys))
      for (const key of keys) {
        if (used.has(key) || !(await store.originals.removeIfIdle(key, before))) continue
        await store.thumbnails.removeFor(key)
        counts.removed++
      }
      after = present(keys[keys.length - 1], 'the last key of the page')
      if (keys.length < PAGE) break
    }
    return counts
  }

  /** Sweeps every interval until `stop`; a failed sweep is logged and the next one runs as planned. */
  start (): void {
    if (this.stopped || this.timer !== undefined) return
    this.timer = setTimeout(() => {
      this.running = this.logged().finally(() => {
        this.timer = undefined
        this.start()
      })
    }, this.o.intervalMs)
  }

  async stop (): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.running
  }

  private async logged (): Promise<void> {
    const started = performance.now()
    try {
      const { scanned, removed } = await this.sweep()
      this.o.log.info({ scanned, removed, kept: scanned - removed, ms: Math.round(performance.now() - started) }, 'media collected')
    } catch (err) {
      this.o.log.error({ err }, 'media collection failed; trying again next interval')
    }
  }
}
