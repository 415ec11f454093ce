import { describe, expect, it } from 'vitest'
import { isInline, isMediaType, mimeTypeProblem, normaliseMimeType, sameFormat, sniffProblem } from '../../src/core/media-rules.js'
import { recognisableTypes } from '../../src/media/sniff.js'

describe('normaliseMimeType', () => {
  it.each([
    ['image/jpeg', 'image/jpeg'],
    ['Image/JPEG', 'image/jpeg'],
    ['text/plain; charset=utf-8', 'text/plain'],
    ['  audio/ogg ;codecs=opus', 'audio/ogg'],
    ['', ''],
    [';', ''],
  ])('when Content-Type is %j, then the type kept is %j', (raw, kept) => {
    expect(normaliseMimeType(raw)).toBe(kept)
  })
})

describe('mimeTypeProblem', () => {
  it.each([
    ['image', 'image/jpeg', false],
    ['image', 'image/avif', false],
    ['image', 'image/tiff', false],
    ['image', 'image/svg+xml', true],
    ['image', 'image/jpg', true],
    ['image', 'video/mp4', true],
    ['video', 'video/x-matroska', false],
    ['video', 'video/quicktime', false],
    ['video', 'audio/mpeg', true],
    ['audio', 'audio/x-wav', false],
    ['audio', 'audio/vnd.wave', false],
    ['audio', 'audio/x-flac', false],
    ['audio', 'audio/x-m4a', false],
    ['audio', 'audio/webm', false],
    ['audio', 'audio/midi', true],
    ['b_e_file', 'application/pdf', false],
    ['b_e_file', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', false],
    ['b_e_file', 'text/html', false],
    ['b_e_file', 'nonsense', true],
    ['b_e_file', 'a/b/c', true],
    ['b_e_file', 'text/pl ain', true],
    ['b_e_file', '', true],
  ] as const)('when a(n) %s is uploaded as %j, then refused is %s', (type, mime, refused) => {
    expect(mimeTypeProblem(type, mime) !== null).toBe(refused)
  })

  it('when no type is given, then the problem says it is required', () => {
    expect(mimeTypeProblem('image', '')).toBe('is required (Content-Type)')
  })
})

describe('sniffProblem (magic bytes must agree with the claimed type)', () => {
  it.each([
    ['image/jpeg', 'image/jpeg', null],
    ['image/png', 'image/jpeg', 'the bytes are image/jpeg, not image/png'],
    ['image/png', 'image/apng', null],
    ['audio/wav', 'audio/wav', null],
    ['audio/x-wav', 'audio/wav', null],
    ['audio/x-flac', 'audio/flac', null],
    ['audio/webm', 'video/webm', null],
    ['audio/mp4', 'video/mp4', null],
    ['audio/x-m4a', 'audio/x-m4a', null],
    ['audio/ogg', 'audio/ogg; codecs=opus', null],
    ['video/ogg', 'audio/ogg', null],
    ['video/x-matroska', 'video/matroska', null],
    ['video/mp4', 'video/quicktime', 'the bytes are video/quicktime, not video/mp4'],
    ['application/zip', 'application/zip', null],
    ['application/x-zip-compressed', 'application/zip', null],
    ['text/plain', 'application/pdf', 'the bytes are application/pdf, not text/plain'],
    ['image/jpeg', null, 'the bytes are not image/jpeg'],
    ['audio/x-wav', null, 'the bytes are not audio/x-wav'],
    ['video/x-matroska', null, 'the bytes are not video/x-matroska'],
    ['text/plain', null, null],
    ['text/csv', null, null],
    ['application/json', null, null],
    ['image/svg+xml', null, null],
  ])('when %s is claimed and magic bytes say %j, then the problem is %j', (claimed, detected, problem) => {
    expect(sniffProblem(claimed, detected, recognisableTypes)).toBe(problem)
  })

  it('when names belong to one format, then they are the same format both ways', () => {
    expect(sameFormat('audio/wav', 'audio/vnd.wave')).toBe(true)
    expect(sameFormat('audio/vnd.wave', 'audio/x-wav')).toBe(true)
    expect(sameFormat('image/png', 'image/jpeg')).toBe(false)
  })
})

describe('isInline and isMediaType', () => {
  it.each([
    ['image/jpeg', true], ['image/png', true], ['image/gif', true], ['image/webp', true], ['image/avif', true],
    ['image/tiff', false], ['image/svg+xml', false], ['video/mp4', true], ['audio/mpeg', true], ['text/plain', true],
    ['text/html', false], ['application/pdf', false], ['application/octet-stream', false],
  ])('when the type is %s, then inline is %s', (mime, inline) => {
    expect(isInline(mime)).toBe(inline)
  })

  it('when object types are asked, then exactly the four media types take files', () => {
    expect(['image', 'video', 'audio', 'b_e_file', 'document', 'section', ''].filter(isMediaType)).toEqual(['image', 'video', 'audio', 'b_e_file'])
  })
})
