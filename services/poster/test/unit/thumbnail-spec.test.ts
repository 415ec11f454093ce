import { describe, expect, it } from 'vitest'
import {
  fitSize, parseStoreName, parseThumbnailPath, requestedSize, storeName, thumbnailExt, thumbnailPath, type ThumbnailTarget,
} from '../../src/core/thumbnail-spec.js'

const KEY = '0a'.repeat(32)

describe('requestedSize', () => {
  it.each([
    [undefined, undefined, { width: null, height: null }],
    ['1', undefined, { width: 1, height: null }],
    [undefined, '4096', { width: null, height: 4096 }],
    ['300', '200', { width: 300, height: 200 }],
  ])('when width is %j and height %j, then the request is %j', (width, height, wanted) => {
    expect(requestedSize(width, height)).toEqual(wanted)
  })

  it.each([
    ['0', 'width'], ['4097', 'width'], ['1.5', 'width'], ['-1', 'width'], ['abc', 'width'], ['01', 'width'], ['', 'width'],
    ['1e3', 'width'], ['+5', 'width'], ['10 ', 'width'], ['99999', 'width'], ['٣', 'width'],
  ])('when width is %j, then 400 INVALID_PARAMETER names %s', (value, parameter) => {
    expect(() => requestedSize(value, undefined)).toThrow(expect.objectContaining({ reason: 'INVALID_PARAMETER', details: { parameter } }))
    expect(() => requestedSize(undefined, value)).toThrow(expect.objectContaining({ details: { parameter: 'height' } }))
  })
})

describe('fitSize', () => {
  it.each([
    [{ width: null, height: null }, { width: 4000, height: 3000 }, { width: 130, height: 85 }],
    [{ width: 300, height: 100 }, { width: 4000, height: 3000 }, { width: 300, height: 100 }],
    [{ width: 400, height: null }, { width: 4000, height: 3000 }, { width: 400, height: 300 }],
    [{ width: null, height: 300 }, { width: 4000, height: 3000 }, { width: 400, height: 300 }],
    [{ width: 100, height: null }, { width: 3, height: 2 }, { width: 100, height: 67 }],
    [{ width: 4096, height: null }, { width: 1, height: 10 }, { width: 4096, height: 4096 }],
    [{ width: 1, height: null }, { width: 10_000, height: 1 }, { width: 1, height: 1 }],
    [{ width: 260, height: null }, null, { width: 260, height: 170 }],
    [{ width: null, height: 85 }, null, { width: 130, height: 85 }],
    [{ width: 200, height: null }, { width: 0, height: 0 }, { width: 200, height: 131 }],
  ])('when %j is asked of an original shown %j, then the size is %j', (wanted, aspect, size) => {
    expect(fitSize(wanted, aspect)).toEqual(size)
  })
})

describe('thumbnail paths and store names', () => {
  const image: ThumbnailTarget = { kind: 'image', key: KEY, size: { width: 130, height: 85 }, ext: 'jpg' }
  const placeholder: ThumbnailTarget = { kind: 'placeholder', size: { width: 40, height: 30 } }

  it('when built and parsed, then paths and names round-trip', () => {
    expect(thumbnailPath(image)).toBe(`${KEY}/130x85.jpg`)
    expect(thumbnailPath(placeholder)).toBe('placeholder/40x30.png')
    expect(storeName(image)).toBe(`${KEY}-130x85.jpg`)
    expect(storeName(placeholder)).toBe('placeholder-40x30.png')
    for (const t of [image, placeholder]) {
      expect(parseThumbnailPath(thumbnailPath(t))).toEqual(t)
      expect(parseStoreName(storeName(t))).toEqual(t)
    }
  })

  it.each([
    [''], ['placeholder'], ['placeholder/40x30.jpg'], ['placeholder/0x30.png'], ['placeholder/40x4097.png'], ['placeholder/040x30.png'],
    [`${KEY}/130x85.gif`], [`${KEY}/130x85`], [`${KEY}/130X85.jpg`], [`${KEY.toUpperCase()}/130x85.jpg`], [`${KEY.slice(1)}/130x85.jpg`],
    [`${KEY}/130x85.jpg/x`], [`../${KEY}/130x85.jpg`], [`${KEY}/../130x85.jpg`], [`${KEY}//130x85.jpg`], [`${KEY}/1.5x85.jpg`],
  ])('when the path is %j, then it is not a thumbnail', (path) => {
    expect(parseThumbnailPath(path)).toBeNull()
  })

  it('when the original is a JPEG, then the thumbnail is jpg; anything else png', () => {
    expect(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'image/tiff', 'text/plain'].map(thumbnailExt))
      .toEqual(['jpg', 'png', 'png', 'png', 'png', 'png', 'png'])
  })
})
