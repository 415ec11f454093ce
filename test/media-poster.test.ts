import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from '@content/platform'
import { loadContentProtos, type v1 } from '@content/protos'
import { admin, login } from './support/seeded.js'
import { createMedia, getBytes, photo, png } from './support/media.js'
import { expectError, seed } from './support/writer.js'
import { ADMIN, http, removeDir, startSystem, type RunningSystem } from './support/system.js'
import { must } from './support/must.js'

/** GET /poster/{id} (spec 4.9, decisions §8): the choice of image, signed content-addressed thumbnails, permissions. */
describe('posters and thumbnails', () => {
  let system: RunningSystem
  let base: string
  let refs: Record<string, number>
  let admin_: string
  let mia: string
  let stats: () => Promise<v1.PosterStats__Output>
  let close: () => void
  const ids: Record<string, number> = {}

  beforeAll(async () => {
    system = await startSystem()
    base = system.base
    refs = seed(system.dataDir, {
      groups: [{ name: 'members' }],
      users: [{ username: 'mia', password: 'mia-password-123', groups: ['members'] }, { username: 'olly', password: 'olly-password-123' }],
      objects: [
        { ref: 'news', object_type: 'section', title: 'News', parents: ['@publication'] },
        { ref: 'plain', object_type: 'document', title: 'No pictures', parents: ['news'] },
        { ref: 'with-poster', object_type: 'document', title: 'Has a poster', parents: ['news'] },
        { ref: 'with-attach', object_type: 'document', title: 'Has an attachment', parents: ['news'] },
        { ref: 'empty-image', object_type: 'image', title: 'An image without a file', parents: ['news'] },
      ],
    })
    admin_ = (await login(base, ADMIN.username, ADMIN.password)).access_token
    mia = (await login(base, 'mia', 'mia-password-123')).access_token
    const make = async (name: string, bytes: Buffer, type = 'image/jpeg') =>
      (await createMedia(base, admin_, { type: 'image', name, bytes, contentType: type, parents: [must(refs.news)] })).id as number
    ids.photo = await make('photo.jpg', await photo(1))
    ids.poster = await make('poster.png', await png(300, 100), 'image/png')
    ids.attached = await make('attached.jpg', await photo(2))
    ids.secret = await make('secret.jpg', await photo(4))
    const relate = (from: number, name: string, to: number) => http(base, 'POST', `/objects/${from}/relations/${name}`, {
      headers: { authorization: `Bearer ${admin_}` }, body: { data: { related_id: to } },
    })
    expect((await relate(must(refs['with-poster']), 'poster', ids.poster)).status).toBe(201)
    expect((await relate(must(refs['with-poster']), 'attach', ids.attached)).status).toBe(201)
    expect((await relate(must(refs['with-attach']), 'attach', ids.attached)).status).toBe(201)
    expect(admin(system, 'permissions', 'set', String(ids.secret), '--read', 'members').status).toBe(0)

    const services = JSON.parse(readFileSync(join(system.dataDir, 'services.json'), 'utf8')) as { poster: string }
    const client = createClient<v1.PosterServiceDefinition>(loadContentProtos().content.v1.PosterService, services.poster, {
      timeoutMs: 2_000, identity: { name: 'admin', secret: readFileSync(join(system.dataDir, 'service-secret'), 'utf8') }, userToken: admin_,
    })
    stats = () => client.GetStats({})
    close = () => client.close()
  })
  afterAll(async () => {
    close?.()
    await system?.stop()
    if (system) removeDir(system.dataDir)
  })

  const poster = async (id: number | string, query = '', token?: string) => {
    const res = await http(base, 'GET', `/poster/${id}${query}`, token ? { headers: { authorization: `Bearer ${token}` } } : {})
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toMatchObject({ api: 'poster', method: 'get' })
    expect(Object.keys(res.body.data).sort()).toEqual(['id', 'uri'])
    return res.body.data as { id: number, uri: string }
  }

  it('the image is chosen in the order of spec 4.9: poster relation, the object itself, then an attachment', async () => {
    expect((await poster(must(refs['with-poster']))).id).toBe(ids.poster)
    expect((await poster(must(ids.photo))).id).toBe(ids.photo)
    expect((await poster(must(refs['with-attach']))).id).toBe(ids.attached)
    expect((await poster('news')).id).toBe(refs.news)
  })

  it('a thumbnail is 130×85 by default, cropped, the real type of its bytes, without EXIF or GPS, cacheable for a year', async () => {
    const { uri } = await poster(must(ids.photo))
    expect(uri).toMatch(new RegExp(`^${base}/thumbnails/[0-9a-f]{64}/130x85\\.jpg\\?sig=[A-Za-z0-9_-]+$`))
    const thumb = await getBytes(uri)
    expect(thumb.status).toBe(200)
    expect(thumb.headers.get('content-type')).toBe('image/jpeg')
    expect(thumb.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    const meta = await sharp(thumb.bytes).metadata()
    expect([meta.format, meta.width, meta.height, meta.exif, meta.orientation]).toEqual(['jpeg', 130, 85, undefined, undefined])
    expect((await getBytes(uri, { 'if-none-match': must(thumb.headers.get('etag')) })).status).toBe(304)
    // content-addressed: the same image and size give the same URL and the same bytes
    expect((await poster(must(ids.photo))).uri).toBe(uri)
    expect((await getBytes(uri)).bytes.equals(thumb.bytes)).toBe(true)
  })

  it('one side alone keeps the displayed aspect ratio (EXIF orientation applied); both sides crop', async () => {
    const tall = await getBytes((await poster(must(ids.photo), '?width=100')).uri) // displayed 200×300
    expect(await sharp(tall.bytes).metadata()).toMatchObject({ width: 100, height: 150 })
    const wide = await getBytes((await poster(must(ids.poster), '?height=50')).uri) // 300×100
    expect(await sharp(wide.bytes).metadata()).toMatchObject({ width: 150, height: 50, format: 'png' })
    const square = await getBytes((await poster(must(ids.photo), '?width=64&height=64')).uri)
    expect(await sharp(square.bytes).metadata()).toMatchObject({ width: 64, height: 64 })
  })

  it('without an image there is a placeholder of the requested size; an image without a file answers its own id', async () => {
    const none = await poster(must(refs.plain), '?width=90&height=40')
    expect(none.id).toBe(refs.plain)
    const bytes = await getBytes(none.uri)
    expect([bytes.status, bytes.headers.get('content-type'), bytes.headers.get('cache-control')]).toEqual([200, 'image/png', 'public, max-age=31536000, immutable'])
    expect(await sharp(bytes.bytes).metadata()).toMatchObject({ width: 90, height: 40 })
    const empty = await poster(must(refs['empty-image']), '?width=30')
    expect(empty.id).toBe(refs['empty-image'])
    expect(await sharp((await getBytes(empty.uri)).bytes).metadata()).toMatchObject({ width: 30 })
  })

  it('width and height must be integers from 1 to 4096', async () => {
    for (const bad of ['width=0', 'width=4097', 'width=1.5', 'width=-1', 'height=abc', 'width=01', 'width=']) {
      expectError(await http(base, 'GET', `/poster/${ids.photo}?${bad}`), 400, 'INVALID_PARAMETER')
    }
    expectError(await http(base, 'GET', `/poster/${ids.photo}?size=10`), 400, 'UNKNOWN_QUERY_PARAMETER')
    const big = await poster(must(ids.photo), '?width=4096&height=1')
    expect(big.uri).toContain('/4096x1.jpg')
  })

  it('a changed size or signature is 404: only sizes that went through /poster are rendered', async () => {
    const { uri } = await poster(must(ids.photo), '?width=77&height=55')
    const before = (await stats()).renders
    expectError(await http(base, 'GET', uri.replace('77x55', '78x55').slice(base.length)), 404, 'THUMBNAIL_NOT_FOUND')
    // Flip the signature's first character to a different one (a fixed 'A' would be no change 1 time in 64).
    const tampered = uri.replace(/sig=(.)/, (_, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`)
    expect(tampered).not.toBe(uri)
    expectError(await http(base, 'GET', tampered.slice(base.length)), 404, 'THUMBNAIL_NOT_FOUND')
    expectError(await http(base, 'GET', must(uri.split('?')[0]).slice(base.length)), 404, 'THUMBNAIL_NOT_FOUND')
    expect((await stats()).renders).toBe(before)
  })

  it('a protected image answers 401 and 403 like a read; its thumbnail URL expires and is private', async () => {
    expectError(await http(base, 'GET', `/poster/${ids.secret}`), 401, 'OBJECT_PROTECTED')
    const outsider = (await login(base, 'olly', 'olly-password-123')).access_token
    expectError(await http(base, 'GET', `/poster/${ids.secret}`, { headers: { authorization: `Bearer ${outsider}` } }), 403, 'PERMISSION_DENIED')
    const { uri } = await poster(must(ids.secret), '', mia)
    const expires = Number(new URL(uri).searchParams.get('expires'))
    expect(expires * 1000 - Date.now()).toBeGreaterThan(3_500_000)
    expect(expires * 1000 - Date.now()).toBeLessThanOrEqual(3_600_000)
    const thumb = await getBytes(uri)
    expect(thumb.status).toBe(200)
    expect(thumb.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/)
    expectError(await http(base, 'GET', uri.replace(`expires=${expires}`, `expires=${expires + 3600}`).slice(base.length)), 404, 'THUMBNAIL_NOT_FOUND')
  })

  it('fifty concurrent requests for one new thumbnail render it once', async () => {
    const { uri } = await poster(must(ids.attached), '?width=211&height=97')
    const before = await stats()
    const answers = await Promise.all(Array.from({ length: 50 }, () => getBytes(uri)))
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200))
    expect(new Set(answers.map((a) => a.bytes.toString('base64'))).size).toBe(1)
    expect((await stats()).renders - before.renders).toBe(1)
  })
})
