import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { signPath, verifyPath } from '../../src/core/signatures.js'

const SECRET = 's'.repeat(32)
const PATH = `${'ab'.repeat(32)}/130x85.jpg`
const NOW = 1_700_000_000_000

describe('signPath', () => {
  it('when a path is signed, then the signature is the first 22 characters of base64url(HMAC-SHA256("v1\\n" + path + "\\n" + expires))', () => {
    const full = createHmac('sha256', SECRET).update(`v1\n${PATH}\n1700000100`).digest('base64url')
    expect(signPath(SECRET, PATH, '1700000100')).toBe(full.slice(0, 22))
    expect(signPath(SECRET, PATH, '')).toMatch(/^[A-Za-z0-9_-]{22}$/)
  })
})

describe('verifyPath', () => {
  const sig = signPath(SECRET, PATH, '')
  const expiring = signPath(SECRET, PATH, '1700000100')

  it.each([
    ['the signed path', PATH, '', sig, 'valid'],
    ['an unexpired URL', PATH, '1700000100', expiring, 'valid'],
    ['a URL past its expiry', PATH, '1699999999', signPath(SECRET, PATH, '1699999999'), 'expired'],
    ['a URL at its expiry second', PATH, '1700000000', signPath(SECRET, PATH, '1700000000'), 'expired'],
    ['another size', PATH.replace('130x85', '131x85'), '', sig, 'invalid'],
    ['an expiry added', PATH, '1700000100', sig, 'invalid'],
    ['an expiry removed', PATH, '', expiring, 'invalid'],
    ['an expiry moved', PATH, '1700000200', expiring, 'invalid'],
    ['an expired, forged URL', PATH, '1600000000', expiring, 'invalid'],
    ['a changed character', PATH, '', `${sig.slice(0, 21)}${sig.endsWith('A') ? 'B' : 'A'}`, 'invalid'],
    ['a longer signature', PATH, '', `${sig}A`, 'invalid'],
    ['the full HMAC', PATH, '', createHmac('sha256', SECRET).update(`v1\n${PATH}\n`).digest('base64url'), 'invalid'],
    ['no signature', PATH, '', '', 'invalid'],
    ['an expiry that is not a number', PATH, 'soon', signPath(SECRET, PATH, 'soon'), 'invalid'],
    ['another key', PATH, '', signPath('t'.repeat(32), PATH, ''), 'invalid'],
  ])('when the URL carries %s, then it is %s', (_label, path, expires, signature, verdict) => {
    expect(verifyPath(SECRET, path, expires, signature, NOW)).toBe(verdict)
  })
})
