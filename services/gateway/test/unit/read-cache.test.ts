import { describe, expect, it } from 'vitest'
import { ReadCache, readCacheKey } from '../../src/http/read-cache.js'

const entry = { body: '{"a":1}', etag: '"x"' }

describe('ReadCache', () => {
  it('when the feed has not spoken yet, then nothing is stored or served', () => {
    const c = new ReadCache(10)
    c.set('k', entry, c.epoch())
    expect(c.get('k')).toBeUndefined()
  })

  it('when live, then entries are served until a new generation arrives', () => {
    const c = new ReadCache(10)
    c.observe({ store_id: 's', generation: 1 })
    c.set('k', entry, c.epoch())
    expect(c.get('k')).toEqual(entry)
    c.observe({ store_id: 's', generation: 1 })
    expect(c.get('k')).toEqual(entry)
    c.observe({ store_id: 's', generation: 2 })
    expect(c.get('k')).toBeUndefined()
  })

  it('when the store id changes, then everything is dropped', () => {
    const c = new ReadCache(10)
    c.observe({ store_id: 's', generation: 5 })
    c.set('k', entry, c.epoch())
    c.observe({ store_id: 't', generation: 5 })
    expect(c.get('k')).toBeUndefined()
  })

  it('when an answer was computed before an invalidation, then it is not stored after it', () => {
    const c = new ReadCache(10)
    c.observe({ store_id: 's', generation: 1 })
    const epoch = c.epoch()
    c.observe({ store_id: 's', generation: 2 })
    c.set('k', entry, epoch)
    expect(c.get('k')).toBeUndefined()
  })

  it('when the feed goes down, then the cache is bypassed until it speaks again', () => {
    const c = new ReadCache(10)
    c.observe({ store_id: 's', generation: 1 })
    c.set('k', entry, c.epoch())
    c.down()
    expect(c.isLive).toBe(false)
    expect(c.get('k')).toBeUndefined()
    c.observe({ store_id: 's', generation: 1 })
    expect(c.get('k')).toBeUndefined()
  })
})

describe('readCacheKey', () => {
  const q = (s: string) => new URLSearchParams(s)
  it('ignores access_token and query order', () => {
    expect(readCacheKey('http://h/objects', q('b=2&a=1&access_token=t'), [])).toBe(readCacheKey('http://h/objects', q('a=1&b=2'), []))
  })
  it('sorts groups; different group sets differ; anonymous differs from any group', () => {
    expect(readCacheKey('u', q(''), ['b', 'a'])).toBe(readCacheKey('u', q(''), ['a', 'b']))
    expect(readCacheKey('u', q(''), ['a'])).not.toBe(readCacheKey('u', q(''), ['a', 'b']))
    expect(readCacheKey('u', q(''), [])).not.toBe(readCacheKey('u', q(''), ['a']))
  })
  it('different origins or paths differ', () => {
    expect(readCacheKey('http://a/objects/1', q(''), [])).not.toBe(readCacheKey('http://b/objects/1', q(''), []))
  })
})
