import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { claimsOf, previewKey, signPreview, verifyPreview } from '../../src/identity/preview-token.js'

const key = previewKey('a-service-secret-of-at-least-32-bytes!')
const claims = { object_id: 7, user_id: 3, groups: ['editor'], issued: 400, expires: 1_000 }

/** A token over any body, signed with the right key: what a bug (or an earlier version) could have signed. */
const signedBody = (body: unknown) => {
  const encoded = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)).toString('base64url')
  return `${encoded}.${createHmac('sha256', key).update(encoded).digest('base64url')}`
}

const refused = (token: string, now = 0) => {
  try {
    verifyPreview(key, token, now)
  } catch (err) {
    return (err as { reason?: string }).reason
  }
  return 'accepted'
}

describe('preview tokens (decisions §16)', () => {
  it('when a token is signed, then it verifies before its expiry with the same claims', () => {
    expect(verifyPreview(key, signPreview(key, claims), 999)).toEqual(claims)
  })

  it('when a token expires, then PREVIEW_TOKEN_EXPIRED', () => {
    expect(refused(signPreview(key, claims), 1_000)).toBe('PREVIEW_TOKEN_EXPIRED')
  })

  it.each([
    ['altered claims', (t: string) => `${Buffer.from(JSON.stringify([7, 1, ['administrator'], 400, 1_000])).toString('base64url')}.${t.split('.')[1]}`],
    ['another key', () => signPreview(previewKey('another-service-secret-of-32-bytes-or-more'), claims)],
    ['no signature', (t: string) => t.split('.')[0] ?? ''],
    ['an empty body', (t: string) => `.${t.split('.')[1]}`],
    ['garbage', () => 'x.y.z'],
  ])('when a token has %s, then PREVIEW_TOKEN_INVALID', (_label, tamper) => {
    expect(refused(tamper(signPreview(key, claims)))).toBe('PREVIEW_TOKEN_INVALID')
  })

  // a good signature over claims of the wrong shape: refused, never a crash (a 500) or a guess
  it.each([
    ['an object, not an array', { object_id: 7, user_id: 3, groups: [], issued: 0, expires: 1_000 }],
    ['a number', 42],
    ['null', null],
    ['a string', 'claims'],
    ['bytes that are no JSON', '{"not json'],
    ['too few claims', [7, 3, ['editor'], 1_000]],
    ['the earlier version\'s shape', [7, 3, ['editor'], true, 1_000]],
    ['too many claims', [7, 3, ['editor'], 400, 1_000, 'more']],
    ['a string id', ['7', 3, ['editor'], 400, 1_000]],
    ['a zero user', [7, 0, ['editor'], 400, 1_000]],
    ['a fractional id', [7.5, 3, ['editor'], 400, 1_000]],
    ['an unsafe id', [2 ** 60, 3, ['editor'], 400, 1_000]],
    ['groups as a string', [7, 3, 'editor', 400, 1_000]],
    ['groups as an object', [7, 3, { 0: 'editor' }, 400, 1_000]],
    ['a non-string group', [7, 3, ['editor', 5], 400, 1_000]],
    ['an empty group name', [7, 3, [''], 400, 1_000]],
    ['a string expiry', [7, 3, ['editor'], 400, '1000']],
    ['a negative issue time', [7, 3, ['editor'], -1, 1_000]],
    ['a null expiry', [7, 3, ['editor'], 400, null]],
  ])('when the signed claims are %s, then PREVIEW_TOKEN_INVALID', (_label, body) => {
    expect(refused(signedBody(body))).toBe('PREVIEW_TOKEN_INVALID')
  })

  it('when the claims are well typed, then claimsOf names them; a copy of the groups, not the parsed array', () => {
    const groups = ['a', 'b']
    const parsed = claimsOf([1, 2, groups, 0, 5])
    expect(parsed).toEqual({ object_id: 1, user_id: 2, groups: ['a', 'b'], issued: 0, expires: 5 })
    expect(parsed?.groups).not.toBe(groups)
  })
})
