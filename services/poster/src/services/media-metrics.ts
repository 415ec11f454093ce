import { counter, gauge, histogram } from '@content/platform'
import type { RenderGate } from '../core/render-gate.js'

/**
 * How a thumbnail render ended: `ok` an image thumbnail, `placeholder` the stand-in for an object without
 * an image, `failed` an original that did not render (its placeholder answered), `rejected` refused by
 * the render gate (every slot and the queue taken, or the wait too long).
 */
export type RenderOutcome = 'ok' | 'placeholder' | 'failed' | 'rejected'
const OUTCOMES: readonly RenderOutcome[] = ['ok', 'placeholder', 'failed', 'rejected']

const renders = counter({ name: 'content_thumbnail_renders_total', help: 'Thumbnail renders, by outcome.', labelNames: ['outcome'] as const })
// every outcome's series exists from the start, so a rate over it is never empty
for (const outcome of OUTCOMES) renders.inc({ outcome }, 0)
export const renderOutcomes = Object.fromEntries(OUTCOMES.map((o) => [o, renders.labels(o)])) as Record<RenderOutcome, { inc(): void }>

export const renderSeconds = histogram({
  name: 'content_thumbnail_render_duration_seconds',
  help: 'Time a thumbnail render took once it had a slot: reading the original, decoding, resizing, encoding.',
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
})

export const uploads = counter({ name: 'content_media_uploads_total', help: 'Files stored (or found already stored) by uploads and imports.' })
export const uploadBytes = counter({ name: 'content_media_upload_bytes_total', help: 'Bytes of the files stored by uploads and imports.' })

/** Gates whose load the gauges report: one per process in service, several in tests; none kept alive. */
const gates: Array<WeakRef<RenderGate>> = []

function loadOf (pick: 'active' | 'waiting'): number {
  let sum = 0
  for (const ref of gates) sum += ref.deref()?.load()[pick] ?? 0
  return sum
}

gauge({
  name: 'content_thumbnail_render_queue_depth',
  help: 'Image work (thumbnail renders, upload decode checks) waiting for a render slot.',
  collect () { this.set(loadOf('waiting')) },
})
gauge({
  name: 'content_thumbnail_renders_in_flight',
  help: 'Image work (thumbnail renders, upload decode checks) holding a render slot.',
  collect () { this.set(loadOf('active')) },
})

/** Reports `gate`'s load at every scrape for as long as it lives. */
export function watchGate (gate: RenderGate): void {
  for (let i = gates.length - 1; i >= 0; i--) if (gates[i]?.deref() === undefined) gates.splice(i, 1)
  gates.push(new WeakRef(gate))
}
