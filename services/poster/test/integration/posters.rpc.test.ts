import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestCaller } from '@content/platform/testing'
import { signPath } from '../../src/core/signatures.js'
import { failure, READER, SIGNING_KEY, startPoster, type Harness } from '../support/harness.js'
import { buildSite } from '../support/site.js'

describe('GetPoster over gRPC', () => {
  let h: Harness
  let site: Awaited<ReturnType<typeof buildSite>>
  beforeAll(async () => {
    h = await startPoster()
    site = await buildSite(h)
  })
  afterAll(async () => { await h.close() })

  const poster = (objectId: number | string, size: { width?: string, height?: string } = {}, caller: TestCaller = READER) =>
    h.getPoster(caller, { object_id: String(objectId), ...size })

  const publicPath = (path: string) => `thumbnails/${path}?sig=${signPath(SIGNING_KEY, path, '')}`

  it.each([
    ['an object with a poster image', 'withPoster', 10, 'jpeg', '130x85.jpg'],
    ['an image without a poster', 'imageItself', 2, 'png', '130x85.png'],
    ['an image with a poster image', 'imageWithPoster', 10, 'jpeg', '130x85.jpg'],
  ] as const)('when asked for %s, then that image answers with a public signed URL', async (_label, which, id, file, name) => {
    const res = await poster(site.ids[which])
    expect(res).toEqual({ id, thumbnail_path: publicPath(`${site[file].key}/${name}`) })
  })

  it('when the only image is an attached protected one, then its URL expires after THUMBNAIL_URL_TTL', async () => {
    const res = await poster(site.ids.attachedOnly)
    const expires = Math.floor(h.now() / 1000) + 3_600
    expect(res.id).toBe(11)
    const path = `${site.png.key}/130x85.png`
    expect([expires, expires - 1].map((e) => `thumbnails/${path}?expires=${e}&sig=${signPath(SIGNING_KEY, path, String(e))}`)).toContain(res.thumbnail_path)
  })

  it.each([
    ['an object with no image', 'nothing', 4],
    ['an object whose poster image has no file', 'posterWithoutFile', 12],
    ['an object whose poster image\'s original is missing from the store', 'posterMissingOriginal', 13],
  ] as const)('when asked for %s, then a public placeholder answers with id %i', async (_label, which, id) => {
    expect(await poster(site.ids[which])).toEqual({ id, thumbnail_path: publicPath('placeholder/130x85.png') })
  })

  it.each([
    [{ width: '100' }, '100x200.jpg'],
    [{ height: '100' }, '50x100.jpg'],
    [{ width: '300', height: '50' }, '300x50.jpg'],
    [{ width: '4096' }, '4096x4096.jpg'],
    [{ height: '1' }, '1x1.jpg'],
  ])('when the size asked is %j, then the thumbnail is %s (one side from the displayed proportions)', async (size, name) => {
    expect((await poster(site.ids.withPoster, size)).thumbnail_path).toContain(`/${name}?`)
  })

  it.each([
    [{ width: '260' }, 'placeholder/260x170.png'],
    [{ height: '17' }, 'placeholder/26x17.png'],
  ])('when a placeholder is asked at %j, then it keeps 130:85 (%s)', async (size, path) => {
    expect((await poster(site.ids.nothing, size)).thumbnail_path).toBe(publicPath(path))
  })

  it.each([
    ['width', '0'], ['width', '4097'], ['width', '1.5'], ['height', '-1'], ['height', 'abc'], ['width', '01'], ['height', ''], ['width', ' 1'],
  ])('when %s is %j, then 400 INVALID_PARAMETER names it', async (parameter, value) => {
    const f = await failure(poster(site.ids.withPoster, { [parameter]: value }))
    expect(f).toMatchObject({ httpStatus: 400, reason: 'INVALID_PARAMETER', details: { parameter } })
  })

  it('when the object does not exist or is protected, then its own 404/401 come first, before the size', async () => {
    expect(await failure(poster(999, { width: 'abc' }))).toMatchObject({ httpStatus: 404, reason: 'OBJECT_NOT_FOUND' })
    expect(await failure(poster(site.ids.protectedDoc, {}, { user_id: 0, groups: [] }))).toMatchObject({ httpStatus: 401, reason: 'OBJECT_PROTECTED' })
    expect((await poster(site.ids.protectedDoc)).id).toBe(10)
  })
})
