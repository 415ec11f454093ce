import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestCaller } from '@content/platform/testing'
import type { v1 } from '@content/protos'
import { failure, READER, startPoster, uploadHeader, type Harness } from '../support/harness.js'
import { orientedJpeg } from '../support/images.js'
import { must } from '../support/must.js'

type Range = Pick<v1.GetOriginalRequest, 'range_start' | 'range_end' | 'suffix_length' | 'if_range'>

describe('GetOriginal over gRPC', () => {
  let h: Harness
  let text: Buffer
  let big: Buffer
  let file: v1.MediaFile__Output
  let bigFile: v1.MediaFile__Output
  let jpegFile: v1.MediaFile__Output
  beforeAll(async () => {
    h = await startPoster()
    text = Buffer.from('0123456789abcdefghij')
    big = Buffer.alloc(200_000, 'x')
    const upload = async (name: string, mime: string, bytes: Buffer, objectType = 'b_e_file') =>
      must(((await h.upload(uploadHeader({ object_type: objectType, file_name: name, mime_type: mime }), bytes)) as v1.UploadReceipt__Output).file)
    file = await upload('notes – v2.txt', 'text/plain', text)
    bigFile = await upload('big.csv', 'text/csv', big)
    jpegFile = await upload('p.jpg', 'image/jpeg', await orientedJpeg(), 'image')
    h.fake.put({ id: 20, object_type: 'b_e_file', file, free_access: false })
    h.fake.put({ id: 21, object_type: 'b_e_file', file: bigFile, free_access: true })
    h.fake.put({ id: 22, object_type: 'image', file: jpegFile, free_access: true })
    h.fake.put({ id: 23, object_type: 'b_e_file', file: null, free_access: true })
    h.fake.put({ id: 24, object_type: 'b_e_file', file: { ...file, key: 'e'.repeat(64) }, free_access: true })
  })
  afterAll(async () => { await h.close() })

  const get = (objectId: number, fileName: string, over: Range & { head?: boolean } = {}, caller: TestCaller = READER) =>
    h.original({ caller, object_id: String(objectId), file_name: fileName, if_range: '', ...over })

  it('when a reader asks for the file by its name, then the bytes answer with the header the gateway maps', async () => {
    const { header, bytes } = await get(20, 'notes – v2.txt')
    expect(bytes.equals(text)).toBe(true)
    expect(header).toEqual({
      mime_type: 'text/plain', size: 20, total_size: 20, etag: `"${file.key}"`, public: false, immutable: false,
      expires_at: 0, file_name: 'notes – v2.txt', inline: true,
    })
  })

  it('when a file is larger than a message, then it comes in pieces of at most 64 KiB, whole', async () => {
    const { header, bytes, chunks } = await get(21, 'big.csv')
    expect(bytes.equals(big)).toBe(true)
    expect(chunks).toBe(4)
    expect(header).toMatchObject({ mime_type: 'text/csv', public: true, inline: false })
  })

  it('when an image original is asked, then its bytes are the upload\'s, untouched', async () => {
    const { header, bytes } = await get(22, 'p.jpg')
    expect(bytes.equals(await orientedJpeg())).toBe(true)
    expect(header).toMatchObject({ mime_type: 'image/jpeg', inline: true })
  })

  it.each([
    ['bytes=2-5', { range_start: 2, range_end: 5 }, 2, 4],
    ['bytes=15-', { range_start: 15 }, 15, 5],
    ['bytes=-3', { suffix_length: 3 }, 17, 3],
    ['bytes=-50', { suffix_length: 50 }, 0, 20],
    ['bytes=10-999', { range_start: 10, range_end: 999 }, 10, 10],
  ])('when the range is %s, then those bytes answer with range_start and size', async (_label, range, start, size) => {
    const { header, bytes } = await get(20, 'notes – v2.txt', range)
    expect(header).toMatchObject({ range_start: start, size, total_size: 20 })
    expect(bytes.equals(text.subarray(start, start + size))).toBe(true)
  })

  it.each([
    ['bytes=20-', { range_start: 20 }],
    ['bytes=-0', { suffix_length: 0 }],
  ])('when the range is %s, then 416 RANGE_NOT_SATISFIABLE with the total size', async (_label, range) => {
    expect(await failure(get(20, 'notes – v2.txt', range))).toMatchObject({ httpStatus: 416, reason: 'RANGE_NOT_SATISFIABLE', details: { total_size: 20 } })
  })

  it('when If-Range names the current ETag, then the range applies; another validator gets the whole file', async () => {
    expect((await get(20, 'notes – v2.txt', { range_start: 1, range_end: 2, if_range: `"${file.key}"` })).bytes.toString()).toBe('12')
    const whole = await get(20, 'notes – v2.txt', { range_start: 1, range_end: 2, if_range: '"stale"' })
    expect(whole.header.range_start).toBeUndefined()
    expect(whole.bytes.equals(text)).toBe(true)
  })

  it('when HEAD is asked, then the header comes without bytes', async () => {
    const reply = await get(21, 'big.csv', { head: true })
    expect(reply.chunks).toBe(0)
    expect(reply.header.size).toBe(200_000)
  })

  it.each([
    ['another name', 20, 'notes.txt'],
    ['the name in another case', 21, 'BIG.csv'],
    ['an object without a file', 23, 'notes – v2.txt'],
    ['a file whose bytes are not stored', 24, 'notes – v2.txt'],
  ])('when the request names %s, then 404 FILE_NOT_FOUND', async (_label, id, name) => {
    expect(await failure(get(id, name))).toMatchObject({ httpStatus: 404, reason: 'FILE_NOT_FOUND' })
  })

  it('when the object is protected and the caller anonymous, or the object unknown, then the objects service\'s answer passes through', async () => {
    expect(await failure(get(20, 'notes – v2.txt', {}, { user_id: 0, groups: [] }))).toMatchObject({ httpStatus: 401, reason: 'OBJECT_PROTECTED' })
    expect(await failure(get(999, 'x'))).toMatchObject({ httpStatus: 404, reason: 'OBJECT_NOT_FOUND' })
  })
})
