import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { v1 } from '@content/protos'
import sharp from 'sharp'
import type { Imaging } from '../../src/imaging/sharp.js'
import { failure, READER, sleep, startPoster, thumbnailRequest, type Harness } from '../support/harness.js'
import { pixelAt } from '../support/images.js'
import { buildSite } from '../support/site.js'

const renders = async (h: Harness) => (await h.client.GetStats({})).renders

describe('GetThumbnail over gRPC', () => {
  let h: Harness
  let site: Awaited<ReturnType<typeof buildSite>>
  beforeAll(async () => {
    h = await startPoster()
    site = await buildSite(h)
  })
  afterAll(async () => { await h.close() })

  const pathOf = async (objectId: number, size: { width?: string, height?: string } = {}) =>
    (await h.getPoster(READER, { object_id: String(objectId), ...size })).thumbnail_path

  it('when a signed public URL is asked, then a JPEG of exactly that size answers: oriented, without EXIF or GPS, immutable', async () => {
    const { header, bytes } = await h.thumbnail(thumbnailRequest(await pathOf(site.ids.withPoster, { width: '100', height: '200' })))
    const meta = await sharp(bytes).metadata()
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 100, 200])
    expect(meta.exif).toBeUndefined()
    expect(meta.orientation).toBeUndefined()
    // stored red left / blue right, shown a quarter turn clockwise: red on top
    expect((await pixelAt(bytes, 50, 5))[0]).toBeGreaterThan(200)
    expect((await pixelAt(bytes, 50, 195))[2]).toBeGreaterThan(200)
    expect(header).toMatchObject({
      mime_type: 'image/jpeg', size: bytes.length, total_size: bytes.length, public: true, immutable: true, expires_at: 0,
      etag: `"${site.jpeg.key}-100x200.jpg"`, inline: true,
    })
  })

  it('when a PNG original is asked, then the thumbnail is a PNG that keeps transparency', async () => {
    const { header, bytes } = await h.thumbnail(thumbnailRequest(await pathOf(site.ids.imageItself, { width: '64', height: '64' })))
    const meta = await sharp(bytes).metadata()
    expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual(['png', 64, 64, true])
    expect(header.mime_type).toBe('image/png')
  })

  it('when the same thumbnail is asked again, then it comes from the store: the same bytes, no new render', async () => {
    const req = thumbnailRequest(await pathOf(site.ids.withPoster, { width: '77' }))
    const first = await h.thumbnail(req)
    const count = await renders(h)
    const second = await h.thumbnail(req)
    expect(second.bytes.equals(first.bytes)).toBe(true)
    expect(await renders(h)).toBe(count)
    expect(h.files('thumbnails')).toContain(`${site.jpeg.key}-77x154.jpg`)
  })

  it('when HEAD is asked, then the header comes without bytes', async () => {
    const reply = await h.thumbnail({ ...thumbnailRequest(await pathOf(site.ids.withPoster)), head: true })
    expect(reply.chunks).toBe(0)
    expect(reply.header.size).toBeGreaterThan(0)
  })

  it('when a placeholder URL is asked, then a PNG of exactly that size answers, public and immutable', async () => {
    const { header, bytes } = await h.thumbnail(thumbnailRequest(await pathOf(site.ids.nothing, { width: '300', height: '120' })))
    const meta = await sharp(bytes).metadata()
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 300, 120])
    expect(header).toMatchObject({ mime_type: 'image/png', public: true, immutable: true, etag: '"placeholder-300x120.png"' })
  })

  it('when a protected image\'s URL is asked, then it answers private until it expires, then 404 THUMBNAIL_EXPIRED', async () => {
    const req = thumbnailRequest(await pathOf(site.ids.protectedImage))
    expect(req.expires).toMatch(/^[0-9]+$/)
    const { header } = await h.thumbnail(req)
    expect(header).toMatchObject({ public: false, immutable: false, expires_at: Number(req.expires) * 1000 })
    h.clock.offset = 3_601_000
    try {
      expect(await failure(h.thumbnail(req))).toMatchObject({ httpStatus: 404, reason: 'THUMBNAIL_EXPIRED' })
      expect(await failure(h.thumbnail({ ...req, signature: 'A'.repeat(22) }))).toMatchObject({ reason: 'THUMBNAIL_NOT_FOUND' })
    } finally {
      h.clock.offset = 0
    }
  })

  it('when the URL was changed, then 404 THUMBNAIL_NOT_FOUND and nothing is rendered', async () => {
    const req = thumbnailRequest(await pathOf(site.ids.withPoster, { width: '90', height: '90' }))
    const count = await renders(h)
    const changed: v1.GetThumbnailRequest[] = [
      { ...req, path: req.path.replace('90x90', '91x90') },
      { ...req, path: req.path.replace('.jpg', '.png') },
      { ...req, signature: `${req.signature.slice(0, -1)}${req.signature.endsWith('A') ? 'B' : 'A'}` },
      { ...req, signature: '' },
      { ...req, signature: `${req.signature}x` },
      { ...req, expires: '99999999999' },
      { ...req, expires: '-1' },
      { path: 'placeholder/90x90.png', expires: '', signature: req.signature },
    ]
    for (const bad of changed) expect(await failure(h.thumbnail(bad))).toMatchObject({ httpStatus: 404, reason: 'THUMBNAIL_NOT_FOUND' })
    expect(await renders(h)).toBe(count)
  })

  it.each([
    ['../../etc/passwd'], ['placeholder/0x10.png'], ['placeholder/10x10.jpg'], [`${'a'.repeat(64)}/4097x1.jpg`], [`${'A'.repeat(64)}/10x10.jpg`],
    [`${'a'.repeat(64)}/10x10.gif`], [`${'a'.repeat(64)}/010x10.jpg`], ['x'], [''], [`${'a'.repeat(64)}/10x10.jpg/extra`],
  ])('when the path is %j, then 404 THUMBNAIL_NOT_FOUND', async (path) => {
    expect(await failure(h.thumbnail({ path, expires: '', signature: 'x'.repeat(22) }))).toMatchObject({ httpStatus: 404, reason: 'THUMBNAIL_NOT_FOUND' })
  })

  it('when the original of a signed URL no longer decodes, then the placeholder answers at that size, neither kept nor immutable', async () => {
    const staged = join(h.store.originals.stagingDir, 'broken')
    const broken = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(500, 0x41)])
    writeFileSync(staged, broken)
    const key = 'b'.repeat(64)
    await h.store.originals.put(key, staged, { mime_type: 'image/jpeg' })
    h.fake.put({ id: 40, object_type: 'image', free_access: true, file: { ...site.jpeg, key } })
    const req = thumbnailRequest(await pathOf(40, { width: '50', height: '40' }))
    const count = await renders(h)
    const { header, bytes } = await h.thumbnail(req)
    const meta = await sharp(bytes).metadata()
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 50, 40])
    expect(header).toMatchObject({ mime_type: 'image/png', immutable: false, etag: '"placeholder-50x40.png"' })
    await h.thumbnail(req)
    expect(await renders(h)).toBe(count + 2)
    expect(h.files('thumbnails').filter((n) => n.startsWith(key))).toEqual([])
  })

  it('when the original is gone after the URL was issued, then 404 THUMBNAIL_NOT_FOUND', async () => {
    const req = thumbnailRequest(await pathOf(site.ids.imageItself, { width: '33' }))
    expect(await h.store.originals.removeIfIdle(site.png.key, h.now() + 1)).toBe(true)
    expect(await failure(h.thumbnail(req))).toMatchObject({ httpStatus: 404, reason: 'THUMBNAIL_NOT_FOUND' })
  })
})

/** Real image work, each render held back so that requests overlap. */
const slowRenders = (ms: number) => (real: Imaging): Imaging => ({
  ...real,
  renderThumbnail: async (input, spec) => {
    await sleep(ms)
    return real.renderThumbnail(input, spec)
  },
})

describe('GetThumbnail under load', () => {
  it('when 50 requests ask for one new thumbnail at once, then it is rendered once and all get the same bytes', async () => {
    const h = await startPoster({ imaging: slowRenders(1_500) })
    try {
      const site = await buildSite(h)
      const path = (await h.getPoster(READER, { object_id: String(site.ids.withPoster), width: '120' })).thumbnail_path
      const before = await h.client.GetStats({})
      const replies = await Promise.all(Array.from({ length: 50 }, () => h.thumbnail(thumbnailRequest(path))))
      const after = await h.client.GetStats({})
      expect(after.renders - before.renders).toBe(1)
      expect(after.render_waits - before.render_waits).toBe(49)
      expect(new Set(replies.map((r) => r.bytes.toString('base64'))).size).toBe(1)
    } finally {
      await h.close()
    }
  })

  it('when rendering is saturated (RENDER_CONCURRENCY 1, RENDER_QUEUE 0), then another thumbnail is refused with THUMBNAIL_BUSY and a retry hint', async () => {
    const h = await startPoster({ imaging: slowRenders(800), settings: { renderConcurrency: 1, renderQueue: 0 } })
    try {
      const site = await buildSite(h)
      const path = async (width: string) => (await h.getPoster(READER, { object_id: String(site.ids.withPoster), width })).thumbnail_path
      const [a, b] = [await path('101'), await path('102')]
      const slow = h.thumbnail(thumbnailRequest(a))
      for (let i = 0; i < 200 && h.deps.gate.load().active === 0; i++) await sleep(5)
      expect(h.deps.gate.load()).toEqual({ active: 1, waiting: 0 })
      const f = await failure(h.thumbnail(thumbnailRequest(b)))
      expect(f).toMatchObject({ httpStatus: 503, reason: 'THUMBNAIL_BUSY', details: { retry_after: 1 } })
      expect((await slow).header.mime_type).toBe('image/jpeg')
      expect((await h.client.GetStats({})).busy).toBe(1)
      expect((await h.thumbnail(thumbnailRequest(b))).header.mime_type).toBe('image/jpeg')
    } finally {
      await h.close()
    }
  })
})
