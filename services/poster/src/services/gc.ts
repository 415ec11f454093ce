import type { Logger } from '@content/platform'
import { present } from '@content/platform'
import type { MediaStore } from '../store/media.store.js'
import type { ObjectsPort } from './objects.port.js'

/** Keys asked about per FilesInUse call (the objects service answers at most 1,000). */
const PAGE = 500

export interface SweepDeps {
  store: MediaStore
  objects: Pick<ObjectsPort, 'filesInUse'>
  now: () => number
  /** MEDIA_GC_GRACE, ms: anything stored more recently is spared (its upload may not be registered yet) */
  graceMs: number
}

export interface CollectorDeps extends SweepDeps {
  log: Logger
  /** MEDIA_GC_INTERVAL, ms between sweeps */
  intervalMs: number
  /** the loop's state: one per collector */
  loop: CollectorLoop
}

/** The next sweep's timer, the sweep under way, and whether the loop was stopped. */
export interface CollectorLoop {
  timer: NodeJS.Timeout | undefined
  running: Promise<unknown>
  stopped: boolean
}

export const newCollectorLoop = (): CollectorLoop => ({ timer: undefined, running: Promise.resolve(), stopped: false })

export interface SweepCounts {
  scanned: number
  removed: number
}

/**
 * Removes originals no object and no unexpired upload uses, with their thumbnails (decisions §12).
 * Only keys idle for the grace are asked about; removal is conditional on the key still being idle,
 * so bytes uploaded again meanwhile survive.
 */
export async function sweepMedia (deps: SweepDeps): Promise<SweepCounts> {
  const { store, objects } = deps
  const before = deps.now() - deps.graceMs
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

/** Sweeps every interval until `stopCollecting`; a failed sweep is logged and the next one runs as planned. */
export function startCollecting (deps: CollectorDeps): void {
  const { loop } = deps
  if (loop.stopped || loop.timer !== undefined) return
  loop.timer = setTimeout(() => {
    loop.running = sweepLogged(deps).finally(() => {
      loop.timer = undefined
      startCollecting(deps)
    })
  }, deps.intervalMs)
}

export async function stopCollecting ({ loop }: CollectorDeps): Promise<void> {
  loop.stopped = true
  clearTimeout(loop.timer)
  await loop.running
}

async function sweepLogged (deps: CollectorDeps): Promise<void> {
  const started = performance.now()
  try {
    const { scanned, removed } = await sweepMedia(deps)
    deps.log.info({ scanned, removed, kept: scanned - removed, ms: Math.round(performance.now() - started) }, 'media collected')
  } catch (err) {
    deps.log.error({ err }, 'media collection failed; trying again next interval')
  }
}
