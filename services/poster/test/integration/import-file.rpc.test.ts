import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { v1 } from '@content/protos'
import { failure, sleep, startPoster, uploadHeader, type Harness } from '../support/harness.js'
import { orientedJpeg, sha256, smallPng } from '../support/images.js'

type MediaFile = v1.MediaFile__Output

describe('ImportFile over gRPC (admin tool)', () => {
  let h: Harness
  beforeAll(async () => { h = await startPoster() })
  afterAll(async () => { await h.close() })

  const header = (over: object) => ({ object_type: 'image', file_name: 'f.bin', mime_type: '', declared_size: -1, ...over })

  it('when a file comes without a MIME type, then magic bytes decide it, and nothing asks the objects service', async () => {
    const jpeg = await orientedJpeg()
    const file = await h.importFile(header({ file_name: 'pic.jpg' }), jpeg) as MediaFile
    expect(file).toEqual({ key: sha256(jpeg), name: 'pic.jpg', mime_type: 'image/jpeg', size: jpeg.length, width: 200, height: 400 })
    expect(h.fake.registered).toEqual([])
    expect(h.files('originals')).toContain(sha256(jpeg))
  })

  it('when a b_e_file of no recognisable type comes without a MIME type, then it is application/octet-stream', async () => {
    const file = await h.importFile(header({ object_type: 'b_e_file', file_name: 'notes' }), Buffer.from('just words')) as MediaFile
    expect(file).toMatchObject({ mime_type: 'application/octet-stream', size: 10, width: 0, height: 0 })
  })

  it.each([
    ['an image of no recognisable type', { object_type: 'image' }, 415, 'UPLOAD_TYPE_INVALID'],
    ['audio that is text', { object_type: 'audio', mime_type: 'audio/mpeg' }, 415, 'UPLOAD_TYPE_INVALID'],
    ['a type that takes no file', { object_type: 'document' }, 400, 'TYPE_TAKES_NO_FILE'],
    ['a bad name', { file_name: 'a/b' }, 400, 'INVALID_FILE_NAME'],
  ])('when the import is %s, then %i %s', async (_label, over, status, reason) => {
    expect(await failure(h.importFile(header(over), Buffer.from('just words')))).toMatchObject({ httpStatus: status, reason })
  })

  it('when a PNG comes with its MIME type, then it is checked as an upload is', async () => {
    const png = await smallPng(5, 6)
    expect(await h.importFile(header({ mime_type: 'image/png' }), png)).toMatchObject({ mime_type: 'image/png', width: 5, height: 6 })
    expect(await failure(h.importFile(header({ mime_type: 'image/gif' }), png))).toMatchObject({ httpStatus: 415, reason: 'UPLOAD_TYPE_INVALID' })
  })
})

describe('upload concurrency', () => {
  let h: Harness
  beforeAll(async () => { h = await startPoster({ settings: { uploadConcurrency: 1 } }) })
  afterAll(async () => { await h.close() })

  it('when UPLOAD_CONCURRENCY uploads are under way, then one more is refused with UPLOAD_BUSY and a retry hint, and the first still completes', async () => {
    const png = await smallPng()
    const first = h.openUpload<v1.UploadReceipt__Output>({ timeoutMs: 10_000 })
    first.stream.write({ header: uploadHeader({ mime_type: 'image/png', file_name: 'first.png' }) })
    first.stream.write({ chunk: png.subarray(0, 10) })
    for (let i = 0; i < 100 && h.files('staging').length === 0; i++) await sleep(10)
    const f = await failure(h.upload(uploadHeader({ mime_type: 'image/png', file_name: 'second.png' }), png))
    expect(f).toMatchObject({ httpStatus: 503, reason: 'UPLOAD_BUSY', details: { retry_after: 1 } })
    first.stream.write({ chunk: png.subarray(10) })
    first.stream.end()
    expect((await first.response).file).toMatchObject({ key: sha256(png), name: 'first.png' })
    expect(await h.upload(uploadHeader({ mime_type: 'image/png', file_name: 'third.png' }), png)).toMatchObject({ file: { name: 'third.png' } })
  })
})
