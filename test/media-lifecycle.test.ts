import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { login } from './support/seeded.js'
import { createMedia, getBytes, photo, upload } from './support/media.js'
import { expectError, seed } from './support/writer.js'
import { ADMIN, http, removeDir, startSystem, type RunningSystem } from './support/system.js'
import { must } from './support/must.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Files under DATA_DIR/media/<kind>, recursively. */
function filesIn (dataDir: string, kind: 'originals' | 'thumbnails'): string[] {
  const root = join(dataDir, 'media', kind)
  if (!existsSync(root)) return []
  return readdirSync(root, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => d.name)
}

async function eventually (what: string, check: () => boolean, timeoutMs = 8_000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    if (check()) return
    await sleep(100)
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms`)
}

describe('identical bytes stored once, released with the last object that uses them', () => {
  let system: RunningSystem
  let token: string
  let section: number

  beforeAll(async () => {
    // a collector that runs every second and spares only what was stored in the last second; tokens live 3 s
    system = await startSystem({ MEDIA_GC_INTERVAL: '1', MEDIA_GC_GRACE: '1', UPLOAD_TOKEN_TTL: '3' })
    section = must(seed(system.dataDir, { objects: [{ ref: 's', object_type: 'section', title: 'S', parents: ['@publication'] }] }).s)
    token = (await login(system.base, ADMIN.username, ADMIN.password)).access_token
  })
  afterAll(async () => {
    await system?.stop()
    if (system) removeDir(system.dataDir)
  })

  it('two objects with the same bytes share one stored file; purging both from the trash removes it and its thumbnails', async () => {
    const bytes = await photo(9)
    const a = await createMedia(system.base, token, { type: 'image', name: 'one.jpg', bytes, contentType: 'image/jpeg', parents: [section] })
    const b = await createMedia(system.base, token, { type: 'image', name: 'two.jpg', bytes, contentType: 'image/jpeg', parents: [section] })
    expect(filesIn(system.dataDir, 'originals')).toHaveLength(1)
    const thumb = (await http(system.base, 'GET', `/poster/${a.id}?width=40`)).body.data.uri as string
    expect((await getBytes(thumb)).status).toBe(200)
    expect(filesIn(system.dataDir, 'thumbnails').length).toBeGreaterThan(0)

    const remove = (id: number) => http(system.base, 'DELETE', `/objects/${id}`, { headers: { authorization: `Bearer ${token}` } })
    // a deleted object waits in the trash with its file (decisions §16); the purge releases it
    const purge = (id: number) => http(system.base, 'DELETE', `/trash/${id}`, { headers: { authorization: `Bearer ${token}` } })
    expect((await remove(a.id)).status).toBe(204)
    expect((await purge(a.id)).status).toBe(204)
    expect((await getBytes(a.uri)).status).toBe(404)
    await sleep(2_500) // two collector runs: b still uses the bytes
    expect((await getBytes(b.uri)).bytes.equals(bytes)).toBe(true)
    expect(filesIn(system.dataDir, 'originals')).toHaveLength(1)

    expect((await remove(b.id)).status).toBe(204)
    expect((await getBytes(b.uri)).status).toBe(404)
    await sleep(2_500) // in the trash the file stays
    expect(filesIn(system.dataDir, 'originals')).toHaveLength(1)
    expect((await purge(b.id)).status).toBe(204)
    await eventually('the file and its thumbnails are removed', () =>
      filesIn(system.dataDir, 'originals').length === 0 && filesIn(system.dataDir, 'thumbnails').length === 0)
  })

  it('an upload never attached is removed once its token expired, and the token no longer works', async () => {
    const up = await upload(system.base, token, 'image', 'orphan.jpg', await photo(11), 'image/jpeg')
    expect(up.status).toBe(200)
    expect(filesIn(system.dataDir, 'originals')).toHaveLength(1)
    await sleep(1_500)
    expect(filesIn(system.dataDir, 'originals')).toHaveLength(1) // the pending upload holds it
    await eventually('the unattached file is removed', () => filesIn(system.dataDir, 'originals').length === 0)
    const late = await http(system.base, 'POST', '/objects', {
      headers: { authorization: `Bearer ${token}` },
      body: { data: { object_type: 'image', title: 'late', parents: [section], upload_token: up.body.data.upload_token } },
    })
    expectError(late, 400, 'UPLOAD_TOKEN_INVALID')
  })
})

describe('saturated rendering', () => {
  let system: RunningSystem

  beforeAll(async () => {
    system = await startSystem({ RENDER_CONCURRENCY: '1', RENDER_QUEUE: '0' })
  })
  afterAll(async () => {
    await system?.stop()
    if (system) removeDir(system.dataDir)
  })

  it('answers 503 with Retry-After instead of queueing without bound, and the rest are rendered', async () => {
    const section = must(seed(system.dataDir, { objects: [{ ref: 's', object_type: 'section', title: 'S', parents: ['@publication'] }] }).s)
    const token = (await login(system.base, ADMIN.username, ADMIN.password)).access_token
    const big = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).jpeg({ quality: 90 }).toBuffer()
    const image = await createMedia(system.base, token, { type: 'image', name: 'big.jpg', bytes: big, contentType: 'image/jpeg', parents: [section] })
    const uris = await Promise.all(Array.from({ length: 12 }, async (_, i) => (await http(system.base, 'GET', `/poster/${image.id}?width=${100 + i}`)).body.data.uri as string))
    const answers = await Promise.all(uris.map((uri) => getBytes(uri)))
    const busy = answers.filter((a) => a.status === 503)
    expect(busy.length).toBeGreaterThan(0)
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0)
    expect(answers.every((a) => a.status === 200 || a.status === 503)).toBe(true)
    for (const a of busy) {
      expect(JSON.parse(a.bytes.toString()).error.code).toBe('THUMBNAIL_BUSY')
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    }
  })
})

describe('the demo publication', () => {
  let system: RunningSystem

  beforeAll(async () => {
    system = await startSystem({ SEED_DEMO: 'true' })
  })
  afterAll(async () => {
    await system?.stop()
    if (system) removeDir(system.dataDir)
  })

  it('has illustrations related as poster and attach, and a PDF, so posters and files work at once', async () => {
    const base = system.base
    const cover = (await http(base, 'GET', '/objects/cover')).body.data.object
    expect(cover).toMatchObject({ object_type: 'image', mime_type: 'image/jpeg', width: 1600, height: 1000 })
    const original = await getBytes(cover.uri)
    expect([original.status, original.bytes.length]).toEqual([200, cover.file_size])

    const welcome = (await http(base, 'GET', '/poster/welcome?width=320')).body.data
    expect(welcome.id).toBe(cover.id)
    const thumb = await getBytes(welcome.uri)
    expect(await sharp(thumb.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 320, height: 200 })

    const about = (await http(base, 'GET', '/poster/about')).body.data
    expect((await http(base, 'GET', `/objects/${about.id}`)).body.data.object.title).toBe('Team portrait')
    const howto = (await http(base, 'GET', '/objects/how-to-read-this-publication/relations/attach')).body.data.objects
    expect(howto[0]).toMatchObject({ object_type: 'b_e_file', mime_type: 'application/pdf', name: 'reading-guide.pdf' })
    expect((await getBytes(howto[0].uri)).headers.get('content-disposition')).toMatch(/^attachment/)
  })
})
