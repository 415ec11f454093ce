import { describe, expect, it } from 'vitest'
import type { RequestContext } from '../../src/http/context.js'
import { etagOf } from '../../src/http/conditional.js'
import { markShared, replyOnce, serialized } from '../../src/http/shared-replies.js'

const ctxOf = (url: string, query = '', method = 'get') => ({ info: { method, origin: 'http://h', url, query: new URLSearchParams(query) } }) as unknown as RequestContext

/** A build that counts its calls and puts the answer and the request's URL in its body. */
function counting () {
  let builds = 0
  const build = (answer: object, ctx: RequestContext) => () => {
    builds++
    return { status: 200, body: { data: answer, url: ctx.info.url, params: ctx.info.query.toString() } }
  }
  return { build, builds: () => builds }
}

describe('replies shared by the requests of one decoded answer', () => {
  it('when an answer is one request\'s, then each request builds its own reply and serializes it', () => {
    const answer = { id: 1 }
    const c = counting()
    const ctx = ctxOf('http://h/objects/1')
    const one = replyOnce(answer, ctx, c.build(answer, ctx))
    const two = replyOnce(answer, ctx, c.build(answer, ctx))
    expect(c.builds()).toBe(2)
    expect(two).not.toBe(one)
    expect(serialized(one, true)).toEqual({ json: JSON.stringify(one.body), etag: etagOf(JSON.stringify(one.body)) })
    expect(serialized(one, false)).toEqual({ json: JSON.stringify(one.body) })
  })

  it('when requests with the same method and URL share an answer, then one reply is built and serialized once for them; another query or path builds its own', () => {
    const answer = { id: 2 }
    markShared(answer)
    const c = counting()
    const ctx = ctxOf('http://h/objects/2', 'lang=en')
    const first = replyOnce(answer, ctx, c.build(answer, ctx))
    const again = replyOnce(answer, ctxOf('http://h/objects/2', 'lang=en'), c.build(answer, ctx))
    expect(again).toBe(first)
    expect(c.builds()).toBe(1)
    const a = serialized(first, true)
    const b = serialized(again, true)
    expect(b.json).toBe(a.json)
    expect(a).toEqual({ json: Buffer.from(JSON.stringify(first.body)), etag: etagOf(JSON.stringify(first.body)) })
    // a HEAD's envelope is its GET's (info.method is get for both), another query or path is not the same reply
    const otherQuery = ctxOf('http://h/objects/2', 'lang=it')
    const otherPath = ctxOf('http://h/objects/2/children')
    expect(replyOnce(answer, otherQuery, c.build(answer, otherQuery)).body).toMatchObject({ params: 'lang=it' })
    expect(replyOnce(answer, otherPath, c.build(answer, otherPath)).body).toMatchObject({ url: 'http://h/objects/2/children' })
    expect(c.builds()).toBe(3)
  })
})
