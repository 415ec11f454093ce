import type { RenderGate } from '../core/render-gate.js'
import { renderOutcomes, renderSeconds, uploadBytes, uploads, type RenderOutcome } from './media-metrics.js'

/** Counters since start, for GetStats: one set per process, made in the composition root. */
export interface Stats {
  /** thumbnails rendered, placeholders included */
  renders: number
  /** files stored (or found stored) by uploads and imports */
  uploads: number
}

export const newStats = (): Stats => ({ renders: 0, uploads: 0 })

// Each fact below is counted for GetStats and recorded for /metrics here, once.

/** A render finished; `startedMs` is the `performance.now()` it started at. */
export function countRender (stats: Stats, outcome: Exclude<RenderOutcome, 'rejected'>, startedMs: number): void {
  stats.renders++
  renderOutcomes[outcome].inc()
  renderSeconds.observe((performance.now() - startedMs) / 1000)
}

/** The render gate refused work for `reason`; only thumbnail refusals are renders. */
export function countRefusal (reason: string): void {
  if (reason === 'THUMBNAIL_BUSY') renderOutcomes.rejected.inc()
}

/** A file of `bytes` was stored by an upload or an import. */
export function countUpload (stats: Stats, bytes: number): void {
  stats.uploads++
  uploads.inc()
  uploadBytes.inc(bytes)
}

export function statsSnapshot (stats: Stats, gate: RenderGate): { renders: number, render_waits: number, busy: number, max_rss_bytes: number, uploads: number } {
  return {
    renders: stats.renders,
    render_waits: gate.counters.joined,
    busy: gate.counters.busy,
    max_rss_bytes: process.resourceUsage().maxRSS * 1024,
    uploads: stats.uploads,
  }
}
