import { describe, expect, it } from 'vitest'
import { validHost, validScheme } from '../../src/http/host-header.js'

describe('validHost (RFC 3986 host [":" port], RFC 9112 §3.2)', () => {
  it.each(['localhost', 'localhost:8099', 'api.example', '127.0.0.1:80', '[::1]', '[::1]:8099', '[2001:db8::7]', '', 'a:', '%41', 'xn--nxasmq6b.example', "a,b;c=d!$&'()*+", 'a:65535'])(
    'takes %j', (host) => { expect(validHost(host)).toBe(true) })

  it.each(['a b', 'a, b', 'evil.example/x', 'evil.example?x', 'evil.example#x', 'user@evil.example', 'a:b:c', 'a:65536', 'a:99999999999999999999',
    '[::1', '::1', '[zz::1]', '[127.0.0.1]', '[::1]x', 'é.example', 'a\\b', '"a"', '%4', 'a\tb', 'a<b>'])(
    'refuses %j', (host) => { expect(validHost(host)).toBe(false) })
})

describe('validScheme', () => {
  it('takes http and https only', () => {
    expect(['http', 'https'].every(validScheme)).toBe(true)
    expect(['', 'ftp', 'javascript', 'HTTPS', 'https, http', 'http:'].some(validScheme)).toBe(false)
  })
})
