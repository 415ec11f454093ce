import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { v1 } from '@content/protos'
import sharp from 'sharp'
import { failure, READER, sleep, startPoster, uploadHeader, WRITER, type Harness } from '../support/harness.js'
import { hasGpsTag, hugeBlankPng, orientedJpeg, photoJpeg, sha256, smallPng } from '../support/images.js'
import { must } from '../support/must.js'

type Receipt = v1.UploadReceipt__Output

describe('Upload over gRPC', () => {
  let h: Harness
  let jpeg: Buffer
  beforeAll(async () => {
    h = await startPoster()
    jpeg = await orientedJpeg()
  })
  afterAll(async () => { await h.close() })

  it('when a writer uploads a JPEG, then the receipt carries the token and the file as displayed, and the bytes are stored under their SHA-256', async () => {
    expect(hasGpsTag((await sharp(jpeg).metadata()).exif)).toBe(true)
    const receipt = await h.upload(uploadHeader({ file_name: 'Été à la plage.jpg', mime_type: 'Image/JPEG; q=0.9' }), jpeg) as Receipt
    expect(receipt.upload_token).toBe(must(h.fake.registered.at(-1)).upload_token)
    expect(receipt.expires_at).toBe(1_700_000_000_000)
    const file = { key: sha256(jpeg), name: 'Été à la plage.jpg', mime_type: 'image/jpeg', size: jpeg.length, width: 200, height: 400 }
    expect(receipt.file).toEqual(file)
    expect(h.fake.registered.at(-1)).toMatchObject({ object_type: 'image', file, caller: { user_id: WRITER.user_id } })
    expect(existsSync(join(h.dir, 'media', 'originals', file.key.slice(0, 2), file.key))).toBe(true)
    expect(h.files('staging')).toEqual([])
  })

  it('when the same bytes are uploaded twice, then they are stored once and each upload gets its own token', async () => {
    const png = await smallPng(21, 13)
    const before = (await h.client.GetStats({})).uploads
    const first = await h.upload(uploadHeader({ file_name: 'a.png', mime_type: 'image/png' }), png) as Receipt
    const second = await h.upload(uploadHeader({ file_name: 'b.png', mime_type: 'image/png' }), png) as Receipt
    expect(must(second.file).key).toBe(must(first.file).key)
    expect(second.upload_token).not.toBe(first.upload_token)
    expect(h.files('originals').filter((k) => k === must(first.file).key)).toHaveLength(1)
    expect(first.file).toMatchObject({ width: 21, height: 13 })
    expect((await h.client.GetStats({})).uploads).toBe(before + 2)
  })

  it.each([
    ['text/plain', 'notes.txt'],
    ['application/json', 'data.json'],
    ['text/csv', 'table.csv'],
  ])('when text is uploaded as a b_e_file of %s (a type magic bytes cannot recognise), then it is stored as that type', async (mime, name) => {
    const text = Buffer.from(`{"plain": "text", "name": "${name}"}\n`)
    const receipt = await h.upload(uploadHeader({ object_type: 'b_e_file', file_name: name, mime_type: mime }), text) as Receipt
    expect(receipt.file).toMatchObject({ key: sha256(text), mime_type: mime, size: text.length, width: 0, height: 0 })
  })

  it('when text is uploaded as video/mp4, then 415: magic bytes would have recognised an MP4', async () => {
    const f = await failure(h.upload(uploadHeader({ object_type: 'video', file_name: 'clip.mp4', mime_type: 'video/mp4' }), Buffer.from('plain text')))
    expect(f).toMatchObject({ httpStatus: 415, reason: 'UPLOAD_TYPE_INVALID', details: { mime_type: 'the bytes are not video/mp4' } })
  })

  it.each([
    ['image/gif', (img: ReturnType<typeof sharp>) => img.gif()],
    ['image/webp', (img: ReturnType<typeof sharp>) => img.webp()],
    ['image/avif', (img: ReturnType<typeof sharp>) => img.avif()],
    ['image/tiff', (img: ReturnType<typeof sharp>) => img.tiff()],
  ])('when an image of %s is uploaded, then it is checked, decoded and stored with its size', async (mime, encode) => {
    const bytes = await encode(sharp({ create: { width: 33, height: 22, channels: 3, background: '#446688' } })).toBuffer()
    const receipt = await h.upload(uploadHeader({ file_name: `pic.${mime.split('/')[1]}`, mime_type: mime }), bytes) as Receipt
    expect(receipt.file).toMatchObject({ key: sha256(bytes), mime_type: mime, width: 33, height: 22 })
  })

  it('when the request carries a request id, then it reaches the objects service', async () => {
    const { stream, response } = h.openUpload<Receipt>({ timeoutMs: 5_000, requestId: 'req-42' })
    stream.write({ header: uploadHeader({ file_name: 'r.png', mime_type: 'image/png' }) })
    stream.write({ chunk: await smallPng() })
    stream.end()
    await response
    expect(h.fake.requestIds).toContain('req-42')
  })
})

describe('Upload refusals: nothing is stored', () => {
  let h: Harness
  let jpeg: Buffer
  let photo: Buffer
  beforeAll(async () => {
    h = await startPoster({ settings: { uploadMaxBytes: 300_000 } })
    jpeg = await orientedJpeg()
    photo = await photoJpeg(640, 480)
    await expect(sharp(photo.subarray(0, Math.floor(photo.length * 0.7))).metadata()).resolves.toMatchObject({ width: 640 })
  })
  afterAll(async () => { await h.close() })

  const nothingStored = () => {
    expect(h.files('originals')).toEqual([])
    expect(h.files('staging')).toEqual([])
    expect(h.fake.registered).toEqual([])
  }

  it.each([
    ['text sent as image/jpeg', 415, 'UPLOAD_TYPE_INVALID', {}, () => Buffer.from('hello, not a picture at all')],
    ['a truncated JPEG (header intact)', 415, 'UPLOAD_TYPE_INVALID', {}, () => photo.subarray(0, Math.floor(photo.length * 0.7))],
    ['a JPEG claimed as image/png', 415, 'UPLOAD_TYPE_INVALID', { mime_type: 'image/png' }, (j: Buffer) => j],
    ['a JPEG claimed as a type an image does not take', 415, 'UPLOAD_TYPE_INVALID', { mime_type: 'video/mp4' }, (j: Buffer) => j],
    ['no Content-Type', 415, 'UPLOAD_TYPE_INVALID', { mime_type: '' }, (j: Buffer) => j],
    ['an empty body', 400, 'UPLOAD_EMPTY', {}, () => Buffer.alloc(0)],
    ['a declared size over the limit', 413, 'UPLOAD_MAX_FILESIZE_EXCEEDED', { declared_size: 300_001 }, (j: Buffer) => j],
    ['a non-writer', 403, 'PERMISSION_DENIED', { caller: READER }, (j: Buffer) => j],
    ['an anonymous caller', 401, 'AUTHENTICATION_REQUIRED', { caller: { user_id: 0, groups: [] } }, (j: Buffer) => j],
    ['a type that takes no file', 400, 'TYPE_TAKES_NO_FILE', { object_type: 'document' }, (j: Buffer) => j],
  ])('when the upload is %s, then %i %s', async (_label, status, reason, over, body) => {
    const f = await failure(h.upload(uploadHeader(over), body(jpeg)))
    expect(f).toMatchObject({ httpStatus: status, reason })
    nothingStored()
  })

  it.each([
    ['a/b.jpg'], ['a\\b.jpg'], ['../x.jpg'], ['a..jpg'], ['nul\u0000.jpg'], ['tab\t.jpg'], ['del\u007f.jpg'], [''], ['.'], [`${'é'.repeat(126)}.jpg`],
  ])('when the file name is %j, then 400 INVALID_FILE_NAME names file_name', async (name) => {
    const f = await failure(h.upload(uploadHeader({ file_name: name }), jpeg))
    expect(f).toMatchObject({ httpStatus: 400, reason: 'INVALID_FILE_NAME' })
    expect(Object.keys(f.details as object)).toEqual(['file_name'])
    nothingStored()
  })

  it('when a 30000×30000 PNG that compresses small is uploaded, then IMAGE_TOO_LARGE comes fast, from the header, without decoding', async () => {
    const png = await hugeBlankPng(30_000)
    expect(png.length).toBeLessThan(300_000)
    const rssBefore = process.resourceUsage().maxRSS
    const started = performance.now()
    const f = await failure(h.upload(uploadHeader({ file_name: 'huge.png', mime_type: 'image/png' }), png))
    expect(performance.now() - started).toBeLessThan(3_000)
    expect(f).toMatchObject({ httpStatus: 400, reason: 'IMAGE_TOO_LARGE', details: { pixels: 900_000_000, max_pixels: 50_000_000 } })
    // a decode would need the raster (900 MB at a byte a pixel); the peak RSS barely moves
    expect((process.resourceUsage().maxRSS - rssBefore) * 1024).toBeLessThan(150 * 1_048_576)
    nothingStored()
  })

  it('when the body passes the limit, then 413 is answered before the client has finished sending', async () => {
    const { stream, response } = h.openUpload<Receipt>({ timeoutMs: 10_000 })
    stream.write({ header: uploadHeader() })
    let answered = false
    response.catch(() => { answered = true })
    let sent = 0
    while (!answered && sent < 100) {
      stream.write({ chunk: Buffer.alloc(65_536, 7) })
      sent++
      await sleep(10)
    }
    stream.end()
    expect(await failure(response)).toMatchObject({ httpStatus: 413, reason: 'UPLOAD_MAX_FILESIZE_EXCEEDED', details: { max_bytes: 300_000 } })
    expect(sent).toBeLessThan(100)
    nothingStored()
  })

  it('when the stream does not start with the header, then 400 MALFORMED_UPLOAD', async () => {
    const { stream, response } = h.openUpload<Receipt>({ timeoutMs: 5_000 })
    stream.write({ chunk: jpeg.subarray(0, 100) })
    stream.end()
    expect(await failure(response)).toMatchObject({ httpStatus: 400, reason: 'MALFORMED_UPLOAD' })
    nothingStored()
  })

  it('when the stream sends a second header, then 400 MALFORMED_UPLOAD', async () => {
    const { stream, response } = h.openUpload<Receipt>({ timeoutMs: 5_000 })
    stream.write({ header: uploadHeader() })
    stream.write({ chunk: jpeg.subarray(0, 100) })
    stream.write({ header: uploadHeader() })
    stream.end()
    expect(await failure(response)).toMatchObject({ httpStatus: 400, reason: 'MALFORMED_UPLOAD' })
    nothingStored()
  })

  it('when the client cancels mid-body, then nothing is left behind', async () => {
    const { stream, response } = h.openUpload<Receipt>({ timeoutMs: 5_000 })
    stream.write({ header: uploadHeader() })
    stream.write({ chunk: jpeg.subarray(0, 1_000) })
    for (let i = 0; i < 50 && h.files('staging').length === 0; i++) await sleep(10)
    expect(h.files('staging')).toHaveLength(1)
    stream.cancel()
    await response.catch(() => undefined)
    for (let i = 0; i < 50 && h.files('staging').length > 0; i++) await sleep(10)
    nothingStored()
  })
})
