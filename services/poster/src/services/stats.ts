import type { RenderGate } from '../core/render-gate.js'
import { renderOutcomes, renderSeconds, uploadBytes, uploads, watchGate, type RenderOutcome } from './media-metrics.js'

/** Counters since start, for GetStats; each fact is also recorded for /metrics here, once. */
export class Stats {
  /** thumbnails rendered, placeholders included */
  renders = 0
  /** files stored (or found stored) by uploads and imports */
  uploads = 0

  constructor (private readonly gate: RenderGate) {
    watchGate(gate)
  }

  /** A render finished; `startedMs` is the `performance.now()` it started at. */
  rendered (outcome: Exclude<RenderOutcome, 'rejected'>, startedMs: number): void {
    this.renders++
    renderOutcomes[outcome].inc()
    renderSeconds.observe((performance.now() - startedMs) / 1000)
  }

  /** The render gate refused work for `reason`; only thumbnail refusals are renders. */
  refused (reason: string): void {
    if (reason === 'THUMBNAIL_BUSY') renderOutcomes.rejected.inc()
  }

  /** A file of `bytes` was stored by an upload or an import. */
  uploaded (bytes: number): void {
    this.uploads++
    uploads.inc()
    uploadBytes.inc(bytes)
  }

  snapshot (): { renders: number, render_waits: number, busy: number, max_rss_bytes: number, uploads: number } {
    return {
      renders: this.renders,
      render_waits: this.gate.counters.joined,
      busy: this.gate.counters.busy,
      max_rss_bytes: process.resourceUsage().maxRSS * 1024,
      uploads: this.uploads,
    }
  }
}
