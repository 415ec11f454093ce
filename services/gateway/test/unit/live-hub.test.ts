import type { v1 } from '@content/protos'
import { describe, expect, it } from 'vitest'
import { HttpError } from '../../src/http/errors.js'
import type { Access } from '../../src/live/live-access.js'
import { LiveHub, type Opener, type Replayer } from '../../src/live/live-hub.js'
import { parseLiveParams, type LiveParams } from '../../src/live/live-params.js'
import type { LiveStream } from '../../src/live/live-stream.js'

const PUBLIC: Access = { status: 'on', read_groups: [], write_groups: [], parents: [1], ancestors: [1] }
const event = (seq: number, over: Partial<v1.ChangeEvent__Output> = {}): v1.ChangeEvent__Output => ({
  seq, type: 'object.updated', object_id: 10, object_type: 'document', at: 0, affects: [10], access: PUBLIC, ...over,
} as v1.ChangeEvent__Output)
const message = (seq: number, events: v1.ChangeEvent__Output[], over: Partial<v1.Change__Output> = {}): v1.Change__Output =>
  ({ store_id: 's', reset: false, clock: false, events, seq, ...over })

const anonymous = (key = 'address:1'): Opener => ({ viewer: { userId: 0, groups: [], mayWrite: false, drafts: false }, key, session: '', userId: 0 })
/** A stream's parameters with no filter reference (which the handler resolves before a hub sees them). */
const noFilter = (): LiveParams => ({ ...parseLiveParams(new URLSearchParams()), parent: null, ancestor: null })
const parseLiveParamsNoRefs = (query: string): LiveParams => ({ ...parseLiveParams(new URLSearchParams(query)), parent: null, ancestor: null })
const noReplay: Replayer = () => Promise.reject(new Error('no replay expected'))

function hub (limits: Partial<ConstructorParameters<typeof LiveHub>[1]> = {}, replayer: Replayer = noReplay, maxBufferBytes = 1024 * 1024, flushMs = 0): LiveHub {
  const h = new LiveHub(
    { rules: { visibleStatuses: ['on'], windowFilter: true, writerGroups: ['editor'] }, now: () => 0, pingMs: 60_000, maxBufferBytes, retryMs: 1000, flushMs },
    { maxStreams: 10, maxPerCaller: 10, retryAfterSeconds: 7, recentEvents: 100, ...limits }, replayer)
  h.observe(message(0, [], { reset: true }))
  return h
}

/** Everything the stream wrote so far, as text. */
function written (stream: LiveStream): string {
  let text = ''
  for (let chunk = stream.out.read(); chunk !== null; chunk = stream.out.read()) text += String(chunk)
  return text
}
const ids = (text: string) => [...text.matchAll(/^id: (\d+)\.s$/gm)].map((m) => Number(m[1]))

describe('LiveHub', () => {
  it('tells each open stream the events after it opened, in order, each once', () => {
    const h = hub()
    h.observe(message(1, [event(1)]))
    const s = h.open(anonymous(), noFilter(), null)
    h.observe(message(3, [event(2), event(3)]))
    expect(ids(written(s))).toEqual([2, 3])
  })

  it('resumes from the events it keeps, without the objects service, then goes on live', () => {
    const h = hub()
    h.observe(message(3, [event(1), event(2), event(3)]))
    const s = h.open(anonymous(), noFilter(), '1.s')
    h.observe(message(4, [event(4)]))
    const text = written(s)
    expect(ids(text)).toEqual([2, 3, 4])
    expect(text).not.toContain('event: reset')
  })

  it('a position older than the events kept is replayed by the objects service; the live events that came meanwhile follow, none twice', async () => {
    let release: () => void = () => {}
    const replayer: Replayer = (from, until, stream) => new Promise((resolve) => {
      expect([from.seq, until]).toEqual([1, 4])
      release = () => {
        for (let seq = 2; seq <= 5; seq++) stream.replayed('s', event(seq))
        resolve()
      }
    })
    const h = hub({ recentEvents: 1 }, replayer)
    h.observe(message(4, [event(1), event(2), event(3), event(4)]))
    const s = h.open(anonymous(), noFilter(), '1.s')
    h.observe(message(6, [event(5), event(6)]))
    release()
    await new Promise((resolve) => setImmediate(resolve))
    expect(ids(written(s))).toEqual([2, 3, 4, 5, 6])
  })

  it.each([['unparsable', 'nope'], ['another store', '1.other'], ['a failed replay', '0.s']])('%s: reset first, then live', async (_what, after) => {
    const h = hub({ recentEvents: 0 }, () => Promise.reject(new Error('gone')))
    h.observe(message(2, [event(1), event(2)]))
    const s = h.open(anonymous(), noFilter(), after)
    await new Promise((resolve) => setImmediate(resolve))
    h.observe(message(3, [event(3)]))
    const text = written(s)
    expect(text.indexOf('event: reset')).toBeGreaterThan(-1)
    expect(text.indexOf('event: reset')).toBeLessThan(text.indexOf('id: 3.s'))
    expect(ids(text)).toEqual([2, 3]) // the reset's own id is the position it goes on from
  })

  it('the events of one message of the feed that a stream may read go out in one write, in order', () => {
    const h = hub()
    const s = h.open(anonymous(), noFilter(), null)
    written(s) // the retry frame
    const writes: string[] = []
    s.out.on('data', (chunk: Buffer) => writes.push(String(chunk)))
    h.observe(message(4, [event(2), event(3, { access: { ...PUBLIC, read_groups: ['alpha'] }, object_id: 11 }), event(4)]))
    h.observe(message(5, [event(5)]))
    expect(writes.map(ids)).toEqual([[2, 4], [5]])
  })

  it('with a flush window, the events of every message until it closes go out in one write, in order, and a shutdown sends them first', async () => {
    const h = hub({}, noReplay, 1024 * 1024, 30)
    const s = h.open(anonymous(), noFilter(), null)
    const other = h.open(anonymous('address:2'), noFilter(), null)
    written(s)
    const writes: string[] = []
    s.out.on('data', (chunk: Buffer) => writes.push(String(chunk)))
    h.observe(message(2, [event(2)]))
    h.observe(message(3, [event(3)]))
    expect(writes).toEqual([])
    await new Promise((resolve) => setTimeout(resolve, 80))
    expect(writes.map(ids)).toEqual([[2, 3]])
    h.observe(message(4, [event(4)]))
    h.close()
    // the shutdown names the position after what was sent
    expect(writes.map(ids)).toEqual([[2, 3], [4], [4]])
    expect(writes.at(-1)).toBe('id: 4.s\nevent: shutdown\ndata: {"type":"shutdown"}\n\n')
    expect(other.isClosed).toBe(true)
  })

  it('with a flush window, an event that reached the gateway late leaves a window after its commit, not after its arrival, but never two writes within a window', async () => {
    const h = hub({}, noReplay, 1024 * 1024, 30)
    const s = h.open(anonymous(), noFilter(), null)
    written(s)
    const writes: string[] = []
    s.out.on('data', (chunk: Buffer) => writes.push(String(chunk)))
    const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
    h.observe(message(2, [event(2, { at: Date.now() })]))
    await tick(80)
    expect(writes.map(ids)).toEqual([[2]])
    // committed 200 ms ago: already a window past its commit, and the last write is more than a window old
    h.observe(message(3, [event(3, { at: Date.now() - 200 })]))
    await tick(5)
    expect(writes.map(ids)).toEqual([[2], [3]])
    // just as late, but the last write was just now: it waits for the window
    h.observe(message(4, [event(4, { at: Date.now() - 200 })]))
    await tick(5)
    expect(writes.map(ids)).toEqual([[2], [3]])
    await tick(60)
    expect(writes.map(ids)).toEqual([[2], [3], [4]])
    h.close()
  })

  it('streams of one audience share what they send, and each audience gets what its rights and filters let through', async () => {
    const h = hub({}, noReplay, 1024 * 1024, 20)
    const member: Opener = { viewer: { userId: 7, groups: ['alpha'], mayWrite: false, drafts: false }, key: 'user:7', session: 'x', userId: 7 }
    const anonymousPair = [h.open(anonymous(), noFilter(), null), h.open(anonymous('address:2'), noFilter(), null)]
    const members = [h.open(member, noFilter(), null), h.open(member, noFilter(), null)]
    const onlyCreated = h.open(anonymous('address:3'), { ...noFilter(), events: new Set(['object.created']) }, null)
    const all = [...anonymousPair, ...members, onlyCreated]
    all.forEach(written)
    const writes = new Map(all.map((s) => [s, [] as Buffer[]]))
    for (const s of all) s.out.on('data', (chunk: Buffer) => writes.get(s)?.push(chunk))
    const protectedOne = { access: { ...PUBLIC, read_groups: ['alpha'] }, object_id: 11 }
    h.observe(message(3, [event(1), event(2, protectedOne), event(3, { type: 'object.created', object_id: 12 })]))
    h.observe(message(4, [event(4, protectedOne)]))
    await new Promise((resolve) => setTimeout(resolve, 60))
    const sent = (s: LiveStream) => (writes.get(s) ?? []).map((chunk) => ids(String(chunk)))
    expect(anonymousPair.map(sent)).toEqual([[[1, 3]], [[1, 3]]])
    expect(members.map(sent)).toEqual([[[1, 2, 3, 4]], [[1, 2, 3, 4]]])
    expect(sent(onlyCreated)).toEqual([[3]])
    // one audience, one buffer written to each of its streams
    expect(writes.get(members[1] as LiveStream)?.[0]).toBe(writes.get(members[0] as LiveStream)?.[0])
    expect(writes.get(anonymousPair[1] as LiveStream)?.[0]).toBe(writes.get(anonymousPair[0] as LiveStream)?.[0])
  })

  it('a stream whose replay went past the gateway\'s feed gets none of the feed\'s next events twice, beside one of its audience that gets them all', async () => {
    // the objects service is ahead of the gateway's own follower: the replay reads up to 5 while the feed is at 3
    const replayer: Replayer = async (_from, _until, stream) => { for (let seq = 2; seq <= 5; seq++) stream.replayed('s', event(seq)) }
    const h = hub({ recentEvents: 0 }, replayer)
    h.observe(message(3, [event(1), event(2), event(3)]))
    const live = h.open(anonymous(), noFilter(), null)
    const resumed = h.open(anonymous('address:2'), noFilter(), '1.s')
    await new Promise((resolve) => setImmediate(resolve))
    expect(ids(written(resumed))).toEqual([2, 3, 4, 5])
    written(live)
    h.observe(message(6, [event(4), event(5), event(6)]))
    expect(ids(written(live))).toEqual([4, 5, 6])
    expect(ids(written(resumed))).toEqual([6])
  })

  it('a message whose events are out of order is decided stream by stream: nothing twice, nothing skipped that is new', () => {
    const h = hub()
    const s = h.open(anonymous(), noFilter(), null)
    const t = h.open(anonymous('address:2'), noFilter(), null)
    written(s)
    written(t)
    h.observe(message(4, [event(3), event(2), event(4)]))
    expect(ids(written(s))).toEqual([3, 4])
    expect(ids(written(t))).toEqual([3, 4])
  })

  it('the gateway feed starting over resets every stream', () => {
    const h = hub()
    const s = h.open(anonymous(), noFilter(), null)
    h.observe(message(9, [], { reset: true }))
    expect(written(s)).toContain('event: reset')
  })

  it('a change that takes an object away from a stream sends only seq, object_id and object_type', () => {
    const h = hub()
    h.observe(message(1, [event(1)]))
    const s = h.open(anonymous(), noFilter(), null)
    h.observe(message(2, [event(2, { type: 'permissions.changed', access: { ...PUBLIC, read_groups: ['alpha'] } })]))
    h.observe(message(3, [event(3, { access: { ...PUBLIC, read_groups: ['alpha'] } })]))
    const text = written(s)
    expect(ids(text)).toEqual([2])
    const data = JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? '{}')
    expect(data).toEqual({ type: 'object.unpublished', timestamp: expect.any(String), data: { seq: 2, object_id: 10, object_type: 'document' } })
  })

  it('a resume from the events kept tells a change that took an object away since the position, as the live stream did', () => {
    const h = hub()
    h.observe(message(1, [event(1)]))
    h.observe(message(2, [event(2, { type: 'permissions.changed', access: { ...PUBLIC, read_groups: ['alpha'] } })]))
    const s = h.open(anonymous(), noFilter(), '1.s')
    const text = written(s)
    expect(ids(text)).toEqual([2])
    expect(text).toContain('event: object.unpublished')
  })

  it('a change that takes away an object the gateway saw no event of is told by the access the store recorded before it, live and replayed by the store', async () => {
    const taken = (seq: number) => event(seq, { object_id: 20, type: 'permissions.changed', access: { ...PUBLIC, read_groups: ['alpha'], before: { status: 'on', read_groups: [], write_groups: [] } } })
    const h = hub({ recentEvents: 0 }, (_from, _until, stream) => {
      stream.replayed('s', taken(2))
      return Promise.resolve()
    })
    const live = h.open(anonymous(), noFilter(), null)
    h.observe(message(2, [taken(2)]))
    expect(written(live)).toContain('event: object.unpublished')
    const resumed = h.open(anonymous(), noFilter(), '1.s')
    await new Promise((resolve) => setImmediate(resolve))
    const text = written(resumed)
    expect(ids(text)).toEqual([2])
    expect(text).toContain('event: object.unpublished')
    // recorded before: a reader who could not read it then hears nothing
    const hidden = event(3, { object_id: 21, type: 'object.updated', access: { ...PUBLIC, status: 'off', before: { status: 'off', read_groups: [], write_groups: [] } } })
    h.observe(message(3, [hidden]))
    expect(ids(written(live))).toEqual([])
  })

  it('the purge of a trashed object tells nothing more to those who saw it trashed, live or resuming; administrators get object.deleted', () => {
    const h = hub()
    const admin: Opener = { viewer: { userId: 1, groups: ['administrator'], mayWrite: true, drafts: false }, key: 'user:1', session: '', userId: 1 }
    h.observe(message(1, [event(1)]))
    const live = h.open(anonymous(), noFilter(), null)
    const liveAdmin = h.open(admin, noFilter(), null)
    h.observe(message(2, [event(2, { type: 'object.trashed' })]))
    h.observe(message(3, [event(3, { type: 'object.deleted', access: undefined })]))
    const resumed = h.open(anonymous(), noFilter(), '1.s')
    for (const s of [live, resumed]) {
      const text = written(s)
      expect(ids(text)).toEqual([2])
      expect(text).toContain('event: object.trashed')
    }
    expect(ids(written(liveAdmin))).toEqual([2, 3])
  })

  it('refuses past LIVE_MAX_STREAMS with 503 and past LIVE_MAX_STREAMS_PER_CALLER with 429, both with Retry-After; a closed stream frees its place', async () => {
    const h = hub({ maxStreams: 3, maxPerCaller: 2 })
    const params = noFilter()
    const first = h.open(anonymous('a'), params, null)
    h.open(anonymous('a'), params, null)
    const perCaller = (() => { try { h.open(anonymous('a'), params, null) } catch (err) { return err } })() as HttpError
    expect([perCaller.status, perCaller.headers['retry-after']]).toEqual([429, '7'])
    h.open(anonymous('b'), params, null)
    const gateway = (() => { try { h.open(anonymous('c'), params, null) } catch (err) { return err } })() as HttpError
    expect([gateway.status, gateway.reason, gateway.headers['retry-after']]).toEqual([503, 'SERVICE_UNAVAILABLE', '7'])
    first.out.destroy() // the client went away
    await new Promise((resolve) => setImmediate(resolve))
    expect(h.size).toBe(2)
    expect(() => h.open(anonymous('a'), params, null)).not.toThrow()
  })

  it('drops a client that does not read once its unread bytes pass the bound', () => {
    const h = hub({}, noReplay, 4096)
    const s = h.open(anonymous(), noFilter(), null)
    for (let seq = 1; seq <= 500 && !s.isClosed; seq++) h.observe(message(seq, [event(seq)]))
    expect(s.isClosed).toBe(true)
    expect(h.size).toBe(0)
  })

  it('a shutdown ends every stream with event: shutdown and refuses new ones', async () => {
    const h = hub()
    const s = h.open(anonymous(), noFilter(), null)
    h.close()
    const text = written(s)
    expect(text.endsWith('event: shutdown\ndata: {"type":"shutdown"}\n\n')).toBe(true)
    expect(h.size).toBe(0)
    expect(() => h.open(anonymous(), noFilter(), null)).toThrow(HttpError)
  })

  it('a shutdown tells each stream its position, so a client that was sent no event since it opened resumes without a gap', () => {
    const h = hub()
    h.observe(message(1, [event(1)]))
    const s = h.open(anonymous(), parseLiveParamsNoRefs('events=object.created'), null)
    h.observe(message(2, [event(2)]))
    h.close()
    const text = written(s)
    expect(text).not.toContain('event: object.updated')
    expect(text.endsWith('id: 2.s\nevent: shutdown\ndata: {"type":"shutdown"}\n\n')).toBe(true)
    const next = hub()
    next.observe(message(3, [event(1), event(2), event(3, { type: 'object.created' })]))
    expect(ids(written(next.open(anonymous(), noFilter(), '2.s')))).toEqual([3])
  })
})
