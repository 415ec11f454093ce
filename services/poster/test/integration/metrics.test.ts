import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Imaging } from '../../src/imaging/sharp.js'
import { sampleOf, scrape } from '../support/exposition.js'
import { failure, READER, sleep, startPoster, thumbnailRequest, uploadHeader, type Harness } from '../support/harness.js'
import { smallPng } from '../support/images.js'
import { buildSite } from '../support/site.js'

/** How much each series moved while `act` ran. */
async function delta (act: () => Promise<unknown>): Promise<(name: string, labels?: Record<string, string>) => number> {
  const before = await scrape()
  await act()
  const after = await scrape()
  return (name, labels = {}) => sampleOf(after, name, labels) - sampleOf(before, name, labels)
}

const RENDERS = 'content_thumbnail_renders_total'
const DURATION = 'content_thumbnail_render_duration_seconds'
const gaugeOf = async (name: string) => sampleOf(await scrape(), name)

/** Renders that wait for `release()` before doing the real work. */
function heldRenders () {
  const waiting: Array<() => void> = []
  return {
    wrap: (real: Imaging): Imaging => ({
      ...real,
      renderThumbnail: async (input, spec) => {
        await new Promise<void>((resolve) => waiting.push(resolve))
        return real.renderThumbnail(input, spec)
      },
    }),
    release: () => { for (const r of waiting.splice(0)) r() },
  }
}

describe('poster metrics', () => {
  const held = heldRenders()
  let h: Harness
  let site: Awaited<ReturnType<typeof buildSite>>
  beforeAll(async () => {
    h = await startPoster({ imaging: held.wrap, settings: { renderConcurrency: 1, renderQueue: 1 } })
    site = await buildSite(h)
  })
  afterAll(async () => {
    held.release()
    await h.close()
  })

  const pathOf = async (objectId: number, width: string) =>
    thumbnailRequest((await h.getPoster(READER, { object_id: String(objectId), width })).thumbnail_path)

  it('when a thumbnail is rendered, then renders{outcome="ok"} and the duration histogram move by one; served again from the store, neither does', async () => {
    const req = await pathOf(site.ids.withPoster, '64')
    const moved = await delta(async () => {
      const reply = h.thumbnail(req)
      for (let i = 0; i < 200 && h.deps.gate.load().active === 0; i++) await sleep(5)
      // the render holds the only slot while it waits
      expect(await gaugeOf('content_thumbnail_renders_in_flight')).toBe(1)
      await sleep(30)
      held.release()
      await reply
    })
    expect(moved(RENDERS, { outcome: 'ok' })).toBe(1)
    expect(moved(`${DURATION}_count`)).toBe(1)
    expect(moved(`${DURATION}_sum`)).toBeGreaterThanOrEqual(0.03)
    expect(moved(`${DURATION}_bucket`, { le: '0.01' })).toBe(0)
    expect(await gaugeOf('content_thumbnail_renders_in_flight')).toBe(0)
    const again = await delta(() => h.thumbnail(req))
    expect(again(RENDERS)).toBe(0)
    expect(again(`${DURATION}_count`)).toBe(0)
  })

  it('a placeholder render is counted as such', async () => {
    const moved = await delta(async () => h.thumbnail(await pathOf(site.ids.nothing, '48')))
    expect(moved(RENDERS, { outcome: 'placeholder' })).toBe(1)
    expect(moved(RENDERS)).toBe(1)
    expect(moved(`${DURATION}_count`)).toBe(1)
  })

  it('when every slot and the queue are taken, then the refused render counts as rejected and the waiting one as queued', async () => {
    const [a, b, c] = [await pathOf(site.ids.withPoster, '65'), await pathOf(site.ids.withPoster, '66'), await pathOf(site.ids.withPoster, '67')]
    const moved = await delta(async () => {
      const first = h.thumbnail(a)
      for (let i = 0; i < 200 && h.deps.gate.load().active === 0; i++) await sleep(5)
      const second = h.thumbnail(b)
      for (let i = 0; i < 200 && h.deps.gate.load().waiting === 0; i++) await sleep(5)
      expect(await gaugeOf('content_thumbnail_render_queue_depth')).toBe(1)
      expect(await failure(h.thumbnail(c))).toMatchObject({ reason: 'THUMBNAIL_BUSY' })
      for (let i = 0; i < 200 && h.deps.gate.load().active + h.deps.gate.load().waiting > 0; i++) {
        held.release()
        await sleep(5)
      }
      await Promise.all([first, second])
    })
    expect(moved(RENDERS, { outcome: 'rejected' })).toBe(1)
    expect(moved(RENDERS, { outcome: 'ok' })).toBe(2)
    expect(await gaugeOf('content_thumbnail_render_queue_depth')).toBe(0)
  })

  it('an upload that is stored counts once, with its bytes', async () => {
    const png = await smallPng(20, 10)
    const moved = await delta(() => h.upload(uploadHeader({ file_name: 'u.png', mime_type: 'image/png' }), png))
    expect(moved('content_media_uploads_total')).toBe(1)
    expect(moved('content_media_upload_bytes_total')).toBe(png.length)
  })
})

describe('a render that fails', () => {
  it('counts as failed, and its placeholder answers', async () => {
    const h = await startPoster({ imaging: (real) => ({ ...real, renderThumbnail: async () => { throw new Error('corrupt') } }) })
    try {
      const site = await buildSite(h)
      const req = thumbnailRequest((await h.getPoster(READER, { object_id: String(site.ids.withPoster), width: '30' })).thumbnail_path)
      const moved = await delta(() => h.thumbnail(req))
      expect(moved(RENDERS, { outcome: 'failed' })).toBe(1)
      expect(moved(RENDERS)).toBe(1)
      expect(moved(`${DURATION}_count`)).toBe(1)
    } finally {
      await h.close()
    }
  })
})
