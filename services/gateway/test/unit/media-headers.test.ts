import type { v1 } from '@content/protos'
import { describe, expect, it } from 'vitest'
import { cacheControl, contentDisposition, fileAnswer, notModifiedHeaders } from '../../src/http/media/file-headers.js'

const NOW = Date.UTC(2025, 0, 1)
const header = (extra: Partial<v1.FileHeader__Output> = {}): v1.FileHeader__Output => ({
  mime_type: 'image/jpeg', size: 1000, total_size: 1000, etag: '"abc"', public: true, immutable: false,
  expires_at: 0, file_name: 'pic.jpg', inline: true, ...extra,
})

describe('Cache-Control of a file answer', () => {
  const rows: Array<[string, Partial<v1.FileHeader__Output>, boolean, string]> = [
    ['public and immutable', { public: true, immutable: true }, false, 'public, max-age=31536000, immutable'],
    ['public and immutable, with a token', { public: true, immutable: true }, true, 'public, max-age=31536000, immutable'],
    ['expiring in 90.9 s', { public: false, immutable: true, expires_at: NOW + 90_900 }, false, 'private, max-age=90'],
    ['expired', { public: false, expires_at: NOW - 5_000 }, false, 'private, max-age=0'],
    ['public, no token', { public: true }, false, 'no-cache'],
    ['public, with a token', { public: true }, true, 'private, no-cache'],
    ['protected', { public: false }, true, 'private, no-cache'],
    ['protected, no token', { public: false }, false, 'private, no-cache'],
  ]
  it.each(rows)('when %s, then %j', (_name, extra, token, want) => expect(cacheControl(header(extra), NOW, token)).toBe(want))
})

describe('Content-Disposition', () => {
  const rows: Array<[string, boolean, string]> = [
    ['pic.jpg', true, `inline; filename="pic.jpg"; filename*=UTF-8''pic.jpg`],
    ['report.pdf', false, `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`],
    ['été 2024.jpg', true, `inline; filename="_t_ 2024.jpg"; filename*=UTF-8''%C3%A9t%C3%A9%202024.jpg`],
    ['日本 😀.png', true, `inline; filename="__ _.png"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%20%F0%9F%98%80.png`],
    ['a"b\\\\c%d;e.txt', false, `attachment; filename="a_b__c_d;e.txt"; filename*=UTF-8''a%22b%5C%5Cc%25d%3Be.txt`],
    ['', false, `attachment; filename="file"; filename*=UTF-8''`],
  ]
  it.each(rows)('when the name is %j (inline %s), then ASCII fallback plus the exact UTF-8 name', (name, inline, want) => {
    expect(contentDisposition(name, inline)).toBe(want)
  })

  it('when decoded back, then filename* gives the exact name', () => {
    const name = 'été 日本 😀 (1).jpg'
    const encoded = /filename\*=UTF-8''(.*)$/.exec(contentDisposition(name, true))?.[1] ?? ''
    expect(decodeURIComponent(encoded)).toBe(name)
  })
})

describe('fileAnswer: FileHeader → status and headers', () => {
  it('when an original, then the download headers come with it', () => {
    expect(fileAnswer(header({ file_name: 'été.jpg' }), { now: NOW, token: false, original: true })).toEqual({
      status: 200,
      headers: {
        'content-type': 'image/jpeg', 'content-length': '1000', etag: '"abc"', 'x-content-type-options': 'nosniff',
        'cache-control': 'no-cache', 'accept-ranges': 'bytes',
        'content-disposition': `inline; filename="_t_.jpg"; filename*=UTF-8''%C3%A9t%C3%A9.jpg`,
        'content-security-policy': "default-src 'none'; sandbox",
      },
    })
  })

  it('when a thumbnail, then no download headers', () => {
    const { status, headers } = fileAnswer(header({ immutable: true }), { now: NOW, token: false, original: false })
    expect(status).toBe(200)
    expect(Object.keys(headers).sort()).toEqual(['cache-control', 'content-length', 'content-type', 'etag', 'x-content-type-options'])
    expect(headers['cache-control']).toBe('public, max-age=31536000, immutable')
  })

  it('when a range, then 206 with Content-Range of the bytes that follow', () => {
    const answer = fileAnswer(header({ size: 100, total_size: 1000, range_start: 900 }), { now: NOW, token: false, original: true })
    expect(answer.status).toBe(206)
    expect(answer.headers).toMatchObject({ 'content-length': '100', 'content-range': 'bytes 900-999/1000' })
  })

  it('when a range starts at 0, then it is still a range', () => {
    expect(fileAnswer(header({ size: 1, range_start: 0 }), { now: NOW, token: false, original: true }).headers['content-range']).toBe('bytes 0-0/1000')
  })

  it.each([
    ['a type with a line break', { mime_type: 'text/html\r\nx: y' }, 'content-type', 'application/octet-stream'],
    ['an empty type', { mime_type: '' }, 'content-type', 'application/octet-stream'],
    ['a type with parameters', { mime_type: 'text/plain; charset=utf-8' }, 'content-type', 'application/octet-stream'],
    ['an unquoted etag', { etag: 'abc' }, 'etag', undefined],
    ['an etag with a line break', { etag: '"a\r\nb"' }, 'etag', undefined],
    ['a weak etag', { etag: 'W/"abc"' }, 'etag', 'W/"abc"'],
  ] as const)('when the backend sends %s, then no malformed header goes out', (_name, extra, name, want) => {
    expect(fileAnswer(header(extra), { now: NOW, token: false, original: false }).headers[name]).toBe(want)
  })

  it('when not modified, then only the validator and the caching rule', () => {
    const answer = fileAnswer(header({ public: false, expires_at: NOW + 10_000 }), { now: NOW, token: false, original: true })
    expect(notModifiedHeaders(answer)).toEqual({ etag: '"abc"', 'cache-control': 'private, max-age=10' })
  })
})
