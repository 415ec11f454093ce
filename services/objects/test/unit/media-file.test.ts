import { describe, expect, it } from 'vitest'
import { mediaFileSchema, storedFile, storedFileJson } from '../../src/core/media-file.js'
import { OBJECT_TYPES, takesFile } from '../../src/core/object-types.js'

const KEY = '0f'.repeat(32)
const FILE = { key: KEY, name: 'a.png', mime_type: 'image/png', size: 10, width: 2, height: 3 }

describe('takesFile', () => {
  it('when every type is asked, then exactly the media types take a file', () => {
    expect(OBJECT_TYPES.filter(takesFile).sort()).toEqual(['audio', 'b_e_file', 'image', 'video'])
  })
})

describe('mediaFileSchema', () => {
  it.each([
    ['a MIME type with parameters', { mime_type: 'text/plain; charset=utf-8' }],
    ['a MIME type with spaces', { mime_type: 'image/ png' }],
    ['a width over int32', { width: 2 ** 31 }],
    ['a missing key', { key: undefined }],
    // the upload's own rule (decisions §12), so no other path stores a name an upload would refuse
    ['a name with ".."', { name: 'a..b.png' }],
    ['a name with a separator', { name: 'a/b.png' }],
    ['an empty name', { name: '' }],
  ])('when the file has %s, then it is refused', (_label, over) => {
    expect(mediaFileSchema.safeParse({ ...FILE, ...over }).success).toBe(false)
  })

  it('when a well-formed file is given, then it is kept as it is', () => {
    expect(mediaFileSchema.parse({ ...FILE, mime_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' }))
      .toMatchObject({ mime_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' })
  })
})

describe('storedFile', () => {
  it.each([
    ['the current shape', FILE, FILE],
    ['an earlier shape with a path', { path: 'media/a.png', mime_type: 'image/png', width: 1, height: 1 }, null],
    ['a key that is not one', { ...FILE, key: 'media/a.png' }, null],
    ['a size that is text', { ...FILE, size: '10' }, null],
    ['no dimensions', { key: KEY, name: 'a.pdf', mime_type: 'application/pdf', size: 5 }, { key: KEY, name: 'a.pdf', mime_type: 'application/pdf', size: 5, width: 0, height: 0 }],
    ['a string', 'media/a.png', null],
    ['null', null, null],
  ])('when a store holds %s, then it reads back as %j', (_label, value, expected) => {
    expect(storedFile(value)).toEqual(expected)
  })

  it('when a SQLite column holds JSON, null or text that is not JSON, then it reads back as a file or none', () => {
    expect(storedFileJson(JSON.stringify(FILE))).toEqual(FILE)
    expect(storedFileJson(null)).toBeNull()
    expect(storedFileJson('media/a.png')).toBeNull()
  })
})
