import { expect, it } from 'vitest'
import { FAKE_API_KEY } from './fake-backends.js'
import { answerOf, type Listening } from './lane-app.js'
import type { TestAppOptions } from './test-app.js'
import { signToken } from './tokens.js'

type Answer = Awaited<ReturnType<typeof answerOf>>

export interface LaneUnderTest {
  /** a new gateway with the lane in front */
  listening: (options?: TestAppOptions) => Promise<Listening>
  /** the gateway the file shares, once it listens */
  shared: () => Listening
  /** reads `url` until the lane knows it; the full path's answer */
  teach: (target: Listening, url: string, headers?: Record<string, string>) => Promise<Answer>
}

/** The rules both lanes keep (docs/behaviour.md): what always takes the full path, and a token's reads answered for it alone until it expires. */
export function laneRules (lane: LaneUnderTest): void {
  it('leaves to the full path a conditional read, a HEAD, an API key and anything it was not taught', async () => {
    const gw = lane.shared()
    const url = '/objects/2?lang=de'
    const full = await lane.teach(gw, url)
    const apiKey = { headers: { authorization: `Bearer ${FAKE_API_KEY}` } }
    const cases: [string, RequestInit, number][] = [
      [url, { headers: { 'if-none-match': String(full.headers.etag) } }, 304],
      [url, { method: 'HEAD' }, 200],
      // an API key's revocation is checked by the full path: every read reaches fastify
      [url, apiKey, 200], [url, apiKey, 200], [url, apiKey, 200],
      // the same path with another query, or with a token, is another request
      ['/objects/2?lang=it', {}, 200],
      [url, { headers: { authorization: `Bearer ${await signToken({ groups: ['editor'] })}` } }, 200],
    ]
    for (const [target, init, status] of cases) {
      const saw = gw.fastifySaw()
      expect((await fetch(gw.base + target, init)).status).toBe(status)
      expect(gw.fastifySaw()).toBe(saw + 1)
    }
  })

  it('answers a read with an access token for that token only, private as the full path answers it, until the token expires', async () => {
    let now = Date.now()
    const clocked = await lane.listening({ now: () => now })
    const url = '/objects/hello'
    const bearer = { authorization: `Bearer ${await signToken({ groups: ['members'], expiresIn: 60, now })}` }
    const full = await lane.teach(clocked, url, bearer)
    expect(full.headers['cache-control']).toBe('private')
    let saw = clocked.fastifySaw()
    expect(await answerOf(await fetch(clocked.base + url, { headers: bearer }))).toEqual(full)
    expect(clocked.fastifySaw()).toBe(saw)
    // anonymous, the same URL is another request
    expect((await fetch(clocked.base + url)).status).toBe(200)
    expect(clocked.fastifySaw()).toBe(saw + 1)
    // from the token's exp on, the full path answers: 401
    now += 61_000
    saw = clocked.fastifySaw()
    const expired = await fetch(clocked.base + url, { headers: bearer })
    expect(expired.status).toBe(401)
    expect(((await expired.json()) as { error: { code: string } }).error.code).toBe('TOKEN_EXPIRED')
    expect(clocked.fastifySaw()).toBe(saw + 1)
  })
}
