import type { RenderGate } from '../core/render-gate.js'

/** Counters since start, for GetStats. */
export class Stats {
  /** thumbnails rendered, placeholders included */
  renders = 0
  /** files stored (or found stored) by uploads and imports */
  uploads = 0

  constructor (private readonly gate: RenderGate) {}

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
