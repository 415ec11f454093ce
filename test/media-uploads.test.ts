import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { admin, login } from './support/seeded.js'
import { createMedia, getBytes, photo, png, pngBomb, slowUpload, upload, wav } from './support/media.js'
import { expectError, seed } from './support/writer.js'
import { ADMIN, http, removeDir, startSystem, type RunningSystem } from './support/system.js'
import { must } from './support/must.js'

const LIMIT = 2 * 1024 * 1024

/** Uploads (decisions §12): two steps, every refusal of the bad-input list, and the original served with read rights. */
describe('media uploads through the gateway', () => {
  let system: RunningSystem
  let base: string
  let refs: Record<string, number>
  const tokens = { admin: '', ed: '', eve: '', mia: '' }
  type Who = keyof typeof tokens
  const bearer = (who: Who) => ({ authorization: `Bearer ${tokens[who]}` })

  beforeAll(async () => {
    system = await startSystem({ UPLOAD_MAX_BYTES: String(LIMIT) })
    base = system.base
    refs = seed(system.dataDir, {
      groups: [{ name: 'members' }],
      users: [
        { username: 'ed', password: 'ed-password-123', groups: ['editor'] },
        { username: 'eve', password: 'eve-password-123', groups: ['editor'] },
        { username: 'mia', password: 'mia-password-123', groups: ['members'] },
      ],
      objects: [{ ref: 'gallery', object_type: 'section', title: 'Gallery', parents: ['@publication'] }],
    })
    tokens.admin = (await login(base, ADMIN.username, ADMIN.password)).access_token
    for (const who of ['ed', 'eve', 'mia'] as const) tokens[who] = (await login(base, who, `${who}-password-123`)).access_token
  })
  afterAll(async () => {
    await system?.stop()
    if (system) removeDir(system.dataDir)
  })

  it('an upload answers a token and the file facts; POST /objects with it creates an image whose JSON and uri serve the file', async () => {
    const bytes = await photo(3)
    const up = await upload(base, tokens.ed, 'image', 'Sunset%20%C3%A0%20la%20plage.jpg', bytes, 'image/jpeg')
    expect(up.status, JSON.stringify(up.body)).toBe(200)
    expect(up.body).toMatchObject({ api: 'files', method: 'post', url: `${base}/files/image/Sunset%20%C3%A0%20la%20plage.jpg` })
    expect(up.body.data).toMatchObject({ name: 'Sunset à la plage.jpg', mime_type: 'image/jpeg', file_size: bytes.length, width: 200, height: 300 })
    expect(typeof up.body.data.upload_token).toBe('string')
    expect(up.body.data.expires_in).toBeGreaterThan(1700)

    const created = await http(base, 'POST', '/objects', {
      headers: bearer('ed'), body: { data: { object_type: 'image', title: 'Sunset', parents: [refs.gallery], upload_token: up.body.data.upload_token } },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const object = (await http(base, 'GET', `/objects/${created.body.data.object.id}`)).body.data.object
    expect(object).toMatchObject({
      uri: `${base}/media/${object.id}/Sunset%20%C3%A0%20la%20plage.jpg`, name: 'Sunset à la plage.jpg',
      mime_type: 'image/jpeg', file_size: bytes.length, width: 200, height: 300,
    })
    const original = await getBytes(object.uri)
    expect(original.status).toBe(200)
    expect(original.bytes.equals(bytes)).toBe(true)
    expect(original.headers.get('content-type')).toBe('image/jpeg')
    expect(original.headers.get('accept-ranges')).toBe('bytes')
    expect(original.headers.get('x-content-type-options')).toBe('nosniff')
    expect(original.headers.get('content-disposition')).toContain("filename*=UTF-8''Sunset%20%C3%A0%20la%20plage.jpg")

    const part = await getBytes(object.uri, { range: 'bytes=10-19' })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${bytes.length}`)
    expect(part.bytes.equals(bytes.subarray(10, 20))).toBe(true)
    expect((await getBytes(object.uri, { range: `bytes=${bytes.length + 5}-` })).status).toBe(416)
    const tag = must(original.headers.get('etag'))
    expect((await getBytes(object.uri, { 'if-none-match': tag })).status).toBe(304)
    const head = await getBytes(object.uri, {}, 'HEAD')
    expect([head.status, head.headers.get('content-length'), head.bytes.length]).toEqual([200, String(bytes.length), 0])
    expectError(await http(base, 'GET', `/media/${object.id}/another-name.jpg`), 404, 'FILE_NOT_FOUND')
  })

  it('an update with a new token replaces the file; the token is single-use, bound to its uploader and to its object type', async () => {
    const image = await createMedia(base, tokens.ed, { type: 'image', name: 'a.png', bytes: await png(40, 30), contentType: 'image/png', parents: [must(refs.gallery)] })
    const next = await upload(base, tokens.ed, 'image', 'b.png', await png(64, 48), 'image/png')
    const replaced = await http(base, 'POST', '/objects', { headers: bearer('ed'), body: { data: { id: image.id, upload_token: next.body.data.upload_token } } })
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200)
    expect(replaced.body.data.object).toMatchObject({ name: 'b.png', width: 64, height: 48 })
    expect((await getBytes(`${base}/media/${image.id}/a.png`)).status).toBe(404)

    const again = await http(base, 'POST', '/objects', { headers: bearer('ed'), body: { data: { id: image.id, upload_token: next.body.data.upload_token } } })
    expect(expectError(again, 400, 'UPLOAD_TOKEN_INVALID')).toHaveProperty('upload_token')

    const eds = await upload(base, tokens.ed, 'image', 'c.png', await png(10, 10), 'image/png')
    const create = (who: Who, type: string) => http(base, 'POST', '/objects', {
      headers: bearer(who), body: { data: { object_type: type, title: 'x', parents: [refs.gallery], upload_token: eds.body.data.upload_token } },
    })
    expectError(await create('eve', 'image'), 400, 'UPLOAD_TOKEN_INVALID')
    expect(expectError(await create('ed', 'video'), 400, 'UPLOAD_TOKEN_INVALID').upload_token).toContain('image')
    expectError(await http(base, 'POST', '/objects', { headers: bearer('ed'), body: { data: { object_type: 'image', parents: [refs.gallery], upload_token: 'made-up' } } }), 400, 'UPLOAD_TOKEN_INVALID')
    // refused uses did not consume it
    expect((await create('ed', 'image')).status).toBe(201)
  })

  it('video, audio and other files are stored with their type; only safe types are shown inline', async () => {
    const song = await createMedia(base, tokens.ed, { type: 'audio', name: 'tone.wav', bytes: wav(), contentType: 'audio/wav', parents: [must(refs.gallery)] })
    expect(song).toMatchObject({ mime_type: 'audio/wav', file_size: wav().length })
    expect(song).not.toHaveProperty('width')
    expect((await getBytes(song.uri)).headers.get('content-disposition')).toMatch(/^inline/)
    const page = Buffer.from('<html><script>alert(1)</script></html>')
    const file = await createMedia(base, tokens.ed, { type: 'b_e_file', name: 'page.html', bytes: page, contentType: 'text/html', parents: [must(refs.gallery)] })
    const served = await getBytes(file.uri)
    expect(served.headers.get('content-disposition')).toMatch(/^attachment/)
    expect(served.headers.get('content-security-policy')).toContain('sandbox')
    const document = (await http(base, 'GET', `/objects/${refs.gallery}`)).body.data.object
    expect(document).not.toHaveProperty('uri')
  })

  it('a protected object\'s original is served only to callers who may read it', async () => {
    const image = await createMedia(base, tokens.admin, { type: 'image', name: 'secret.png', bytes: await png(20, 20), contentType: 'image/png', parents: [must(refs.gallery)] })
    expect(admin(system, 'permissions', 'set', String(image.id), '--read', 'members').status).toBe(0)
    expectError(await http(base, 'GET', `/media/${image.id}/secret.png`), 401, 'OBJECT_PROTECTED')
    expectError(await http(base, 'GET', `/media/${image.id}/secret.png`, { headers: bearer('eve') }), 403, 'PERMISSION_DENIED')
    const member = await getBytes(`${base}/media/${image.id}/secret.png`, bearer('mia'))
    expect(member.status).toBe(200)
    expect(member.headers.get('cache-control')).toContain('private')
    expect((await getBytes(`${base}/media/${image.id}/secret.png?access_token=${tokens.mia}`)).status).toBe(200)
  })

  describe('refusals: a 4xx with the error body, and nothing stored', () => {
    const refuse = async (expected: [number, string], ...args: Parameters<typeof upload>) => {
      const res = await upload(...args)
      expectError(res, ...expected)
      return res
    }

    it('bytes that are not what Content-Type claims, or not a whole image, are 415', async () => {
      const jpeg = await photo(5)
      await refuse([415, 'UPLOAD_TYPE_INVALID'], base, tokens.ed, 'image', 'x.jpg', Buffer.from('plain words, not a picture at all'), 'image/jpeg')
      await refuse([415, 'UPLOAD_TYPE_INVALID'], base, tokens.ed, 'image', 'x.png', jpeg, 'image/png')
      await refuse([415, 'UPLOAD_TYPE_INVALID'], base, tokens.ed, 'image', 'x.jpg', jpeg.subarray(0, Math.floor(jpeg.length / 2)), 'image/jpeg')
      await refuse([415, 'UPLOAD_TYPE_INVALID'], base, tokens.ed, 'image', 'x.svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml')
      await refuse([415, 'UPLOAD_TYPE_INVALID'], base, tokens.ed, 'image', 'x.jpg', jpeg)
      await refuse([415, 'UPLOAD_TYPE_INVALID'], base, tokens.ed, 'b_e_file', 'x.txt', jpeg, 'text/plain')
    })

    it('a 30,000 × 30,000 PNG of a few hundred KB is refused from its header, fast', async () => {
      const started = Date.now()
      const res = await refuse([400, 'IMAGE_TOO_LARGE'], base, tokens.ed, 'image', 'bomb.png', pngBomb(), 'image/png')
      expect(Date.now() - started).toBeLessThan(3_000)
      expect(res.body.error.details).toMatchObject({ pixels: 900_000_000 })
    })

    it('a body over the limit is 413 before the client finished sending, declared or chunked, and the connection is closed', async () => {
      for (const declared of [true, false]) {
        const res = await slowUpload(`${base}/files/image/big.jpg`, tokens.ed, LIMIT * 8, { declared })
        expect(res.status, JSON.stringify(res.body)).toBe(413)
        expect(res.body.error.code).toBe('UPLOAD_MAX_FILESIZE_EXCEEDED')
        // answered with most of the body unsent; how much left depends on the machine and on the Node line
        // (24's larger stream buffers let the client get further before the checks have run)
        expect(res.sentWhenAnswered).toBeLessThan(LIMIT * 4)
        expect(res.connection).toBe('close')
      }
    })

    it('an empty body, bad file names, another object type, no token or no write right are refused', async () => {
      const bytes = await png(8, 8)
      await refuse([400, 'UPLOAD_EMPTY'], base, tokens.ed, 'image', 'empty.png', Buffer.alloc(0), 'image/png')
      for (const name of ['a%2Fb.png', 'a%5Cb.png', '%2E%2E', 'a..b.png', 'nul%00.png', 'tab%09.png', `${'n'.repeat(256)}.png`, `${'%C3%A0'.repeat(128)}.png`]) {
        await refuse([400, 'INVALID_FILE_NAME'], base, tokens.ed, 'image', name, bytes, 'image/png')
      }
      await refuse([400, 'TYPE_TAKES_NO_FILE'], base, tokens.ed, 'document', 'a.png', bytes, 'image/png')
      await refuse([400, 'UNKNOWN_OBJECT_TYPE'], base, tokens.ed, 'photo', 'a.png', bytes, 'image/png')
      await refuse([401, 'AUTHENTICATION_REQUIRED'], base, undefined, 'image', 'a.png', bytes, 'image/png')
      await refuse([403, 'PERMISSION_DENIED'], base, tokens.mia, 'image', 'a.png', bytes, 'image/png')
      expectError(await http(base, 'GET', '/files/image/a.png'), 405, 'METHOD_NOT_ALLOWED')
      expectError(await http(base, 'POST', '/files/image'), 400, 'MISSING_PARAMETER')
    })

    it('none of the refused bytes were stored: the store holds only the files of objects', async () => {
      // mia, a member, sees the protected image too
      const listed = (await http(base, 'GET', '/objects?page_size=100', { headers: bearer('mia') })).body.data.objects as Array<{ file_size?: number | null }>
      const inUse = listed.filter((o) => typeof o.file_size === 'number').length
      const stored = readdirSync(join(system.dataDir, 'media', 'originals'), { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).length
      // every accepted upload above became an object; the one replaced file waits for the collector's grace period
      expect(stored).toBe(inUse + 1)
    })
  })
})
