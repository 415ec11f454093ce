import { describe, expect, it } from 'vitest'
import { previewKey, signPreview, verifyPreview } from '../../src/core/preview.js'

const key = previewKey('a-service-secret-of-at-least-32-bytes!')
const claims = { object_id: 7, user_id: 3, groups: ['editor'], may_write: true, expires: 1_000 }

describe('preview tokens (decisions §16)', () => {
  it('when a token is signed, then it verifies before its expiry with the same claims', () => {
    expect(verifyPreview(key, signPreview(key, claims), 999)).toEqual(claims)
  })

  it('when a token expires, then PREVIEW_TOKEN_EXPIRED', () => {
    expect(() => verifyPreview(key, signPreview(key, claims), 1_000)).toThrow(expect.objectContaining({ reason: 'PREVIEW_TOKEN_EXPIRED' }))
  })

  it.each([
    ['altered claims', (t: string) => `${Buffer.from(JSON.stringify([7, 1, ['administrator'], true, 1_000])).toString('base64url')}.${t.split('.')[1]}`],
    ['another key', () => signPreview(previewKey('another-service-secret-of-32-bytes-or-more'), claims)],
    ['no signature', (t: string) => t.split('.')[0] ?? ''],
    ['garbage', () => 'x.y.z'],
  ])('when a token has %s, then PREVIEW_TOKEN_INVALID', (_label, tamper) => {
    expect(() => verifyPreview(key, tamper(signPreview(key, claims)), 0)).toThrow(expect.objectContaining({ reason: 'PREVIEW_TOKEN_INVALID' }))
  })
})
