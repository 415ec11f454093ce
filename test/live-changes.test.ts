import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin } from './support/seeded.js'
import { body, openStream, type SseEvent, type SseStream } from './support/sse.js'
import { ADMIN, removeDir, startSystem, type RunningSystem } from './support/system.js'
import { client, create, expectError, login, type Client } from './support/writer.js'

/**
 * Decisions §17 end to end: GET /changes on a running system. Five identities (anonymous, a member of
 * group alpha, a member of group beta, a writer, an administrator) follow one series of writes; each
 * stream must show exactly the events of objects its caller may read, in commit order.
 */
const USERS = {
  alpha: { username: 'ann', password: 'ann-reads-alpha-1', groups: ['alpha'], name: 'Ann', email: 'ann@example.org' },
  beta: { username: 'bob', password: 'bob-reads-beta-2', groups: ['beta'], name: 'Bob', email: 'bob@example.org' },
  writer: { username: 'wes', password: 'wes-writes-3', groups: ['editor'], name: 'Wes', email: 'wes@example.org' },
}

type Who = 'anonymous' | 'alpha' | 'beta' | 'writer' | 'admin'

/** [type, object_id] of each event, leaving out the objects made before the series. */
const seen = (stream: SseStream, ids: ReadonlySet<number>) =>
  stream.events.filter((e) => e.event !== 'reset').map((e) => [e.event, Number(body(e).data.object_id)] as const).filter(([, id]) => ids.has(id))

describe('GET /changes: live changes over Server-Sent Events', () => {
  let system: RunningSystem
  const tokens: Partial<Record<Who, string>> = {}
  let editor: Client
  const streams: SseStream[] = []

  const url = (query = '') => `${system.base}/changes${query}`
  const as = (who: Who): Record<string, string> => (tokens[who] ? { authorization: `Bearer ${tokens[who]}` } : {})
  async function open (who: Who, query = '', headers: Record<string, string> = {}): Promise<SseStream> {
    const stream = await openStream(url(query), { ...as(who), ...headers })
    streams.push(stream)
    return stream
  }

  beforeAll(async () => {
    system = await startSystem({ LIVE_PING_MS: '300', LIVE_MAX_STREAMS_PER_CALLER: '8', LIVE_SESSION_CHECK_MS: '300' })
    const dir = `${system.dataDir}/live-fixtures.json`
    const { writeFileSync } = await import('node:fs')
    writeFileSync(dir, JSON.stringify({ groups: [{ name: 'alpha', backend_auth: false }, { name: 'beta', backend_auth: false }], users: Object.values(USERS), objects: [] }))
    const seeded = admin(system, 'seed', dir)
    expect(seeded.status, seeded.stderr).toBe(0)
    tokens.admin = await login(system.base, ADMIN)
    for (const who of ['alpha', 'beta', 'writer'] as const) tokens[who] = await login(system.base, USERS[who])
    editor = client(system.base, tokens.admin)
  })
  afterAll(async () => {
    for (const s of streams) s.close()
    await system?.stop()
    if (system) removeDir(system.dataDir)
  })

  it('opens as text/event-stream, never cached, and pings while nothing happens', async () => {
    const stream = await open('anonymous')
    expect(stream.status).toBe(200)
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(stream.headers.get('cache-control')).toBe('no-store')
    await new Promise((resolve) => setTimeout(resolve, 800))
    expect(stream.comments.filter((c) => c === 'ping').length).toBeGreaterThanOrEqual(1)
    expect(stream.events).toEqual([])
    stream.close()
  })

  it('answers the position a stream opened from now starts at (X-Last-Event-ID): cut before its first event, it resumes from there with nothing missed', async () => {
    const cut = await open('anonymous')
    const position = cut.headers.get('x-last-event-id') ?? ''
    expect(position).toMatch(/^\d+\.\S+$/)
    cut.close()
    const made = await create(editor, { object_type: 'document', title: 'While cut', parents: [1] })
    const resumed = await open('anonymous', '', { 'last-event-id': position })
    await resumed.until((e) => e.event === 'child.added' && body(e).data.object_id === made)
    expect(seen(resumed, new Set([made]))).toEqual([['object.created', made], ['child.added', made]])
    expect(resumed.events.filter((e) => e.event === 'reset')).toEqual([])
    // a resumed stream knows its position already: the header is for one opened from now
    expect(resumed.headers.get('x-last-event-id')).toBeNull()
    resumed.close()
    await new Promise((resolve) => setTimeout(resolve, 300))
  })

  it('answers a HEAD with the stream\'s headers at once and no body, opening no stream', async () => {
    const head = await fetch(url(), { method: 'HEAD', signal: AbortSignal.timeout(5_000) })
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(await head.text()).toBe('')
    expect((await fetch(url('?nonsense=1'), { method: 'HEAD', signal: AbortSignal.timeout(5_000) })).status).toBe(400)
  })

  it('is in the endpoint listing and the OpenAPI document', async () => {
    const listing = await editor.get('/')
    expect(listing.body.data.changes).toBe(`${system.base}/changes`)
    const doc = await editor.get('/openapi.json')
    const op = doc.body.paths['/changes'].get
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['filter[object_type]', 'filter[parent]', 'filter[ancestor]', 'events', 'status', 'after', 'ticket', 'Last-Event-ID']))
  })

  it.each([
    ['?page=1', 'page'],
    ['?events=object.created,object.exploded', 'events'],
    ['?events=', 'events'],
    ['?filter[object_type]=novel', 'filter[object_type]'],
    ['?filter[parent]=', 'filter[parent]'],
    ['?filter[parent]=news,archive', 'filter[parent]'],
    ['?filter[parent]=0', 'filter[parent]'],
    ['?filter[ancestor]=', 'filter[ancestor]'],
    ['?filter[ancestor]=99999999999999999999', 'filter[ancestor]'],
    ['?status=on', 'status'],
    ['?after=1.a&after=2.a', 'after'],
    ['?events=object.created&events=object.updated', 'events'],
    ['?filter[title]=x', 'filter[title]'],
  ])('refuses %s before opening: 400 INVALID_PARAMETER naming %s', async (query, parameter) => {
    const stream = await open('anonymous', query)
    expect(stream.status).toBe(400)
    const error = JSON.parse(stream.text).error
    expect(error).toMatchObject({ status: 400, code: 'INVALID_PARAMETER', details: { parameter } })
  })

  it('a present but invalid token is a 401, as everywhere', async () => {
    const stream = await openStream(url(), { authorization: 'Bearer not-a-token' })
    expect(stream.status).toBe(401)
  })

  describe('who sees what (BOLA matrix)', () => {
    const ids = new Set<number>()
    const opened: Partial<Record<Who | 'writer-drafts' | 'admin-drafts', SseStream>> = {}
    let pub = 0
    let prot = 0
    let draft = 0
    let last = 0

    beforeAll(async () => {
      for (const who of ['anonymous', 'alpha', 'beta', 'writer', 'admin'] as const) opened[who] = await open(who)
      opened['writer-drafts'] = await open('writer', '?status=draft')
      opened['admin-drafts'] = await open('admin', '?status=draft')
      pub = await create(editor, { object_type: 'document', title: 'Public', parents: [1] })
      prot = await create(editor, { object_type: 'document', title: 'Soon protected', parents: [1] })
      const perms = admin(system, 'permissions', 'set', String(prot), '--read', 'alpha')
      expect(perms.status, perms.stderr).toBe(0)
      expect((await editor.post('/objects', { id: prot, description: 'changed while protected' })).status).toBe(200)
      const madeDraft = await editor.post('/objects?status=draft', { object_type: 'document', title: 'Draft', parents: [1] })
      expect(madeDraft.status).toBe(201)
      draft = madeDraft.body.data.object.id
      // edges whose other end not every caller may read: their events carry its id and type
      expect((await editor.post(`/objects/${pub}/relations/seealso`, [{ related_id: draft }])).status).toBe(201)
      const closed = await create(editor, { object_type: 'section', title: 'Closed', parents: [1] })
      const closing = admin(system, 'permissions', 'set', String(closed), '--read', 'alpha')
      expect(closing.status, closing.stderr).toBe(0)
      const moved = await editor.post(`/objects/${closed}/children`, { child_id: pub })
      expect(moved.status, JSON.stringify(moved.body)).toBe(201)
      last = await create(editor, { object_type: 'document', title: 'Last', parents: [1] })
      for (const id of [pub, prot, draft, last]) ids.add(id)
      for (const stream of Object.values(opened)) await stream.until((e) => e.event === 'child.added' && body(e).data.object_id === last)
    })
    afterAll(async () => {
      for (const stream of streams) stream.close()
      await new Promise((resolve) => setTimeout(resolve, 300))
    })

    const created = (id: number) => [['object.created', id], ['child.added', id]] as const
    const expected = (): Record<string, (readonly [string, number])[]> => {
      const outsider = [...created(pub), ...created(prot), ['object.unpublished', prot] as const, ...created(last)]
      const insider = [...created(pub), ...created(prot), ['permissions.changed', prot] as const, ['object.updated', prot] as const]
      const related = ['relation.created', pub] as const
      const placed = ['child.added', pub] as const
      return {
        anonymous: outsider,
        alpha: [...insider, placed, ...created(last)],
        beta: outsider,
        writer: outsider,
        admin: [...insider, placed, ...created(last)],
        'writer-drafts': [...created(pub), ...created(prot), ['object.unpublished', prot] as const, ...created(draft), related, ...created(last)],
        'admin-drafts': [...insider, ...created(draft), related, placed, ...created(last)],
      }
    }

    it.each(['anonymous', 'alpha', 'beta', 'writer', 'admin', 'writer-drafts', 'admin-drafts'])('%s sees exactly what it may read, in commit order', (who) => {
      const stream = opened[who as keyof typeof opened]
      if (!stream) throw new Error(`no stream for ${who}`)
      expect(seen(stream, ids)).toEqual(expected()[who])
      // positions only grow
      const seqs = stream.events.map((e) => Number(body(e).data.seq))
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
    })

    it('an event carries the webhook body, ids and types only; the bare object.unpublished only seq, object_id and object_type', () => {
      const anon = opened.anonymous as SseStream
      const made = anon.events.find((e) => e.event === 'child.added' && body(e).data.object_id === pub) as SseEvent
      expect(body(made)).toEqual({
        type: 'child.added', timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        data: { seq: expect.any(Number), object_id: pub, object_type: 'document', parent_id: 1, parent_type: expect.any(String) },
      })
      expect(made.id).toMatch(/^\d+\.[A-Za-z0-9-]+$/)
      const gone = anon.events.find((e) => e.event === 'object.unpublished') as SseEvent
      expect(Object.keys(body(gone).data).sort()).toEqual(['object_id', 'object_type', 'seq'])
      expect(body(gone).type).toBe('object.unpublished')
      for (const e of anon.events) expect(e.data).not.toMatch(/Public|Soon protected|Draft|title/)
      // no id of an object a caller may not read, in any field
      const named = (e: SseEvent) => Object.entries(body(e).data).filter(([k]) => k.endsWith('_id')).map(([, v]) => Number(v))
      for (const who of ['anonymous', 'beta', 'writer'] as const) {
        const events = (opened[who] as SseStream).events
        const gone = events.findIndex((e) => e.event === 'object.unpublished' && body(e).data.object_id === prot)
        expect(gone).toBeGreaterThan(-1)
        for (const e of events) expect(named(e)).not.toContain(draft)
        for (const e of events.slice(gone + 1)) expect(named(e)).not.toContain(prot)
      }
    })

    it('filters by event type, object type, parent and ancestor', async () => {
      const section = await create(editor, { object_type: 'section', title: 'Section', parents: [1] })
      const streamsBy = {
        events: await open('admin', '?events=object.created'),
        type: await open('admin', '?filter[object_type]=section'),
        parent: await open('admin', `?filter[parent]=${section}`),
        ancestor: await open('admin', '?filter[ancestor]=1'),
      }
      const sub = await create(editor, { object_type: 'section', title: 'Sub', parents: [section] })
      const deep = await create(editor, { object_type: 'document', title: 'Deep', parents: [sub] })
      const end = await create(editor, { object_type: 'section', title: 'End', parents: [section] })
      const mine = new Set([sub, deep, end])
      for (const s of Object.values(streamsBy)) await s.until((e) => body(e).data.object_id === end, 10_000).catch(() => undefined)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(seen(streamsBy.events, mine)).toEqual([['object.created', sub], ['object.created', deep], ['object.created', end]])
      expect(seen(streamsBy.type, mine)).toEqual([...created(sub), ...created(end)])
      // a new object is under its parents from its creation on: its object.created matches too
      const placed = (id: number) => [['object.created', id], ['child.added', id]]
      expect(seen(streamsBy.parent, mine)).toEqual([...placed(sub), ...placed(end)])
      expect(seen(streamsBy.ancestor, mine)).toEqual([...placed(sub), ...placed(deep), ...placed(end)])
    })

    it('takes a nickname where it takes an id, and a reference the caller may not read matches nothing, as in §15', async () => {
      const section = await create(editor, { object_type: 'section', title: 'Named', nickname: 'live-named-section', parents: [1] })
      const madeDraft = await editor.post('/objects?status=draft', { object_type: 'section', title: 'Hidden', nickname: 'live-hidden-section', parents: [1] })
      expect(madeDraft.status).toBe(201)
      const hidden = madeDraft.body.data.object.id as number
      const streamsBy = {
        nickname: await open('anonymous', '?filter[parent]=live-named-section'),
        ancestorNickname: await open('anonymous', '?filter[ancestor]=live-named-section'),
        hiddenById: await open('anonymous', `?filter[parent]=${hidden}`),
        hiddenByNickname: await open('anonymous', '?filter[parent]=live-hidden-section'),
        missing: await open('anonymous', '?filter[parent]=no-such-nickname'),
        drafts: await open('admin', '?status=draft&filter[parent]=live-hidden-section'),
      }
      const all = opened.anonymous as SseStream
      for (const s of Object.values(streamsBy)) expect(s.status).toBe(200)
      const inNamed = await create(editor, { object_type: 'document', title: 'In named', parents: [section] })
      const inHidden = await create(editor, { object_type: 'document', title: 'In hidden', parents: [hidden] })
      const mine = new Set([inNamed, inHidden])
      await all.until((e) => e.event === 'object.created' && body(e).data.object_id === inHidden, 10_000)
      await streamsBy.drafts.until((e) => e.event === 'child.added' && body(e).data.object_id === inHidden, 10_000)
      await new Promise((resolve) => setTimeout(resolve, 300))
      const placed = (id: number) => [['object.created', id], ['child.added', id]]
      expect(seen(streamsBy.nickname, mine)).toEqual(placed(inNamed))
      expect(seen(streamsBy.ancestorNickname, mine)).toEqual(placed(inNamed))
      // the public child of a draft section reaches an anonymous stream, but not its placement under the draft, nor through a filter naming it
      expect(seen(all, mine)).toEqual([...placed(inNamed), ['object.created', inHidden]])
      for (const s of [streamsBy.hiddenById, streamsBy.hiddenByNickname, streamsBy.missing]) expect(seen(s, mine)).toEqual([])
      expect(seen(streamsBy.drafts, mine)).toEqual(placed(inHidden))
      // the per-caller bound (8 here) leaves room for the streams of the tests after
      for (const s of Object.values(streamsBy)) s.close()
      await new Promise((resolve) => setTimeout(resolve, 300))
    })

    it('resumes after Last-Event-ID (or ?after=) with everything after it, once, then goes on live', async () => {
      const anon = opened.anonymous as SseStream
      const from = anon.events.find((e) => e.event === 'object.created' && body(e).data.object_id === pub) as SseEvent
      const rest = anon.events.slice(anon.events.indexOf(from) + 1).filter((e) => seen({ events: [e] } as SseStream, ids).length > 0)
      const byHeader = await open('anonymous', '', { 'last-event-id': String(from.id) })
      const byQuery = await open('anonymous', `?after=${encodeURIComponent(String(from.id))}`)
      // the header wins over the query
      const both = await open('anonymous', '?after=garbage', { 'last-event-id': String(from.id) })
      const more = await create(editor, { object_type: 'document', title: 'After resume', parents: [1] })
      for (const s of [byHeader, byQuery, both]) {
        await s.until((e) => e.event === 'child.added' && body(e).data.object_id === more)
        expect(s.events.filter((e) => e.event === 'reset')).toEqual([])
        expect(seen(s, ids)).toEqual(rest.map((e) => [e.event, Number(body(e).data.object_id)]))
        expect(seen(s, new Set([more]))).toEqual(created(more))
      }
    })

    it.each([['unparsable', 'garbage'], ['ahead of the head', '999999999.00000000-0000-0000-0000-000000000000'], ['of another store', '1.another-store'],
      ['empty, as after=', '?after='], ['of 500 characters, as after=', `?after=${'7'.repeat(500)}`]])(
      'a position %s answers event: reset first, then goes on live', async (_what, position) => {
        const s = position.startsWith('?') ? await open('anonymous', position) : await open('anonymous', '', { 'last-event-id': position })
        const reset = await s.until((e) => e.event === 'reset')
        expect(reset.data).toBe('{"type":"reset"}')
        expect(s.events[0]).toBe(reset)
        const more = await create(editor, { object_type: 'document', title: 'After reset', parents: [1] })
        await s.until((e) => e.event === 'child.added' && body(e).data.object_id === more)
        // the per-caller bound (8 here) leaves room for the streams of the tests after
        s.close()
        await new Promise((resolve) => setTimeout(resolve, 300))
      })
  })

  it('the events of a fixtures import reach whoever may read their objects, as a write\'s do, and filters follow their placing', async () => {
    const { writeFileSync } = await import('node:fs')
    const section = await create(editor, { object_type: 'section', title: 'Import target', parents: [1] })
    const streams = { anonymous: await open('anonymous'), alpha: await open('alpha'), under: await open('anonymous', `?filter[parent]=${section}`) }
    const file = `${system.dataDir}/live-import.json`
    writeFileSync(file, JSON.stringify({
      objects: [
        { ref: 'open', object_type: 'document', title: 'Imported open', nickname: 'live-import-open', parents: [section] },
        { ref: 'closed', object_type: 'document', title: 'Imported closed', nickname: 'live-import-closed', parents: [section], permissions: { read: ['alpha'] } },
        { ref: 'elsewhere', object_type: 'document', title: 'Imported elsewhere', nickname: 'live-import-elsewhere', parents: ['@publication'] },
      ],
    }))
    const seeded = admin(system, 'seed', file)
    expect(seeded.status, seeded.stderr).toBe(0)
    const ids = new Map<string, number>()
    for (const name of ['open', 'closed', 'elsewhere']) ids.set(name, Number((await editor.get(`/objects/live-import-${name}`)).body.data.object.id))
    const [open_, closed, elsewhere] = [ids.get('open'), ids.get('closed'), ids.get('elsewhere')] as [number, number, number]
    const all = new Set([open_, closed, elsewhere])
    // the last event of the import, which each stream below may read
    await streams.alpha.until((e) => e.event === 'child.added' && Number(body(e).data.object_id) === elsewhere)
    await streams.anonymous.until((e) => e.event === 'child.added' && Number(body(e).data.object_id) === elsewhere)
    await streams.under.until((e) => e.event === 'child.added' && Number(body(e).data.object_id) === open_)
    expect(seen(streams.alpha, all)).toEqual([['object.created', open_], ['object.created', closed], ['object.created', elsewhere], ['child.added', open_], ['child.added', closed], ['child.added', elsewhere]])
    expect(seen(streams.anonymous, all)).toEqual([['object.created', open_], ['object.created', elsewhere], ['child.added', open_], ['child.added', elsewhere]])
    // an import inserts its objects, then places them: a parent's filter matches from the placing on
    expect(seen(streams.under, all)).toEqual([['child.added', open_]])
    for (const stream of Object.values(streams)) stream.close()
    await new Promise((resolve) => setTimeout(resolve, 300))
  })

  it('a change that takes away an object seeded from a file tells object.unpublished', async () => {
    const { writeFileSync } = await import('node:fs')
    const file = `${system.dataDir}/live-seeded.json`
    writeFileSync(file, JSON.stringify({ objects: [{ ref: 'seeded', object_type: 'document', title: 'Seeded', nickname: 'live-seeded', parents: ['@publication'] }] }))
    const seeded = admin(system, 'seed', file)
    expect(seeded.status, seeded.stderr).toBe(0)
    const id = Number((await editor.get('/objects/live-seeded')).body.data.object.id)
    const stream = await open('anonymous')
    const perms = admin(system, 'permissions', 'set', String(id), '--read', 'alpha')
    expect(perms.status, perms.stderr).toBe(0)
    const taken = await stream.until((e) => Number(body(e).data.object_id) === id)
    expect([taken.event, body(taken).data]).toEqual(['object.unpublished', { seq: expect.any(Number), object_id: id, object_type: 'document' }])
    stream.close()
    await new Promise((resolve) => setTimeout(resolve, 300))
  })

  describe('tickets (for an EventSource, which cannot send headers)', () => {
    async function ticket (who: Who): Promise<{ status: number, body: { data: { ticket: string, expires_in: number } } }> {
      const res = await fetch(`${system.base}/changes/tickets`, { method: 'POST', headers: as(who) })
      return { status: res.status, body: await res.json() as { data: { ticket: string, expires_in: number } } }
    }

    it('POST /changes/tickets needs a token and answers a ticket valid 60 s', async () => {
      const anonymous = await ticket('anonymous')
      expect(anonymous.status).toBe(401)
      const issued = await ticket('alpha')
      expect(issued.status).toBe(200)
      expect(issued.body.data).toEqual({ ticket: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/), expires_in: 60 })
    })

    it('a ticket opens one stream as its user, once; used or unknown is a 401 TICKET_INVALID', async () => {
      const { ticket: t } = (await ticket('alpha')).body.data
      const stream = await open('anonymous', `?ticket=${t}`)
      expect(stream.status).toBe(200)
      const again = await open('anonymous', `?ticket=${t}`)
      expect(again.status).toBe(401)
      expect(JSON.parse(again.text).error.code).toBe('TICKET_INVALID')
      const unknown = await open('anonymous', `?ticket=${'x'.repeat(32)}`)
      expect([unknown.status, JSON.parse(unknown.text).error.code]).toEqual([401, 'TICKET_INVALID'])
      // nothing the auth service issues looks like these: unknown tickets all the same
      for (const odd of ['', 'short', '%20'.repeat(20), 'x'.repeat(129), 'ab$cdefghijklmnopqrstu']) {
        const refused = await open('anonymous', `?ticket=${odd}`)
        expect([odd, refused.status, JSON.parse(refused.text).error.code]).toEqual([odd, 401, 'TICKET_INVALID'])
      }
      // the stream reads as alpha: a protected object of alpha's group is told
      const id = await create(editor, { object_type: 'document', title: 'For alpha', parents: [1] })
      expect(admin(system, 'permissions', 'set', String(id), '--read', 'alpha').status).toBe(0)
      expect((await editor.post('/objects', { id, description: 'alpha reads this' })).status).toBe(200)
      await stream.until((e) => e.event === 'object.updated' && body(e).data.object_id === id)
    })

    it('a HEAD checks a ticket without using it: an unknown one is a 401, a good one still opens its stream after', async () => {
      const head = (ticket: string) => fetch(url(`?ticket=${ticket}`), { method: 'HEAD', signal: AbortSignal.timeout(5_000) })
      expect((await head('A'.repeat(32))).status).toBe(401)
      const { ticket: t } = (await ticket('alpha')).body.data
      const checked = await head(t)
      expect([checked.status, checked.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8'])
      expect((await head(t)).status).toBe(200)
      const stream = await open('anonymous', `?ticket=${t}`)
      expect(stream.status).toBe(200)
      stream.close()
      expect((await head(t)).status).toBe(401)
    })

    it('a ticket with a token as well is refused', async () => {
      const { ticket: t } = (await ticket('alpha')).body.data
      const both = await open('alpha', `?ticket=${t}`)
      expect([both.status, JSON.parse(both.text).error.details.parameter]).toEqual([400, 'ticket'])
    })
  })

  describe('revocation: a logout or a disabled user ends the stream within the session check', () => {
    const loginPair = async (who: { username: string, password: string }) => {
      const res = await fetch(`${system.base}/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: who.username, password: who.password }) })
      expect(res.status).toBe(200)
      return (await res.json() as { data: { access_token: string, refresh_token: string } }).data
    }

    it('a logout (DELETE /auth/{refresh_token}) ends the login\'s streams, by token or by ticket, and refuses new ones; other logins go on', async () => {
      const pair = await loginPair(USERS.beta)
      const other = await loginPair(USERS.beta)
      const headers = { authorization: `Bearer ${pair.access_token}` }
      const byToken = await openStream(url(), headers)
      const issued = await fetch(`${system.base}/changes/tickets`, { method: 'POST', headers })
      const byTicket = await openStream(url(`?ticket=${(await issued.json() as { data: { ticket: string } }).data.ticket}`))
      const untouched = await openStream(url(), { authorization: `Bearer ${other.access_token}` })
      streams.push(byToken, byTicket, untouched)
      expect([byToken.status, byTicket.status, untouched.status]).toEqual([200, 200, 200])
      const kept = (await (await fetch(`${system.base}/changes/tickets`, { method: 'POST', headers })).json() as { data: { ticket: string } }).data.ticket
      const out = await fetch(`${system.base}/auth/${pair.refresh_token}`, { method: 'DELETE', headers })
      expect(out.status).toBe(204)
      for (const s of [byToken, byTicket]) {
        await s.until((e) => e.event === 'revoked', 5_000)
        await s.ended
      }
      const again = await openStream(url(), headers)
      expect([again.status, JSON.parse(again.text).error.code]).toEqual([401, 'TOKEN_INVALID'])
      // the access token outlives its login, but no ticket is issued to it, and one issued before is refused
      const late = await fetch(`${system.base}/changes/tickets`, { method: 'POST', headers })
      expect([late.status, (await late.json() as { error: { code: string } }).error.code]).toEqual([401, 'TOKEN_INVALID'])
      const byKept = await openStream(url(`?ticket=${kept}`))
      expect([byKept.status, JSON.parse(byKept.text).error.code]).toEqual([401, 'TOKEN_INVALID'])
      await new Promise((resolve) => setTimeout(resolve, 700))
      expect(untouched.events.filter((e) => e.event === 'revoked')).toEqual([])
    })

    it('disabling a user ends its streams', async () => {
      const pair = await loginPair(USERS.writer)
      const s = await openStream(url(), { authorization: `Bearer ${pair.access_token}` })
      streams.push(s)
      expect(s.status).toBe(200)
      expect(admin(system, 'users', 'disable', USERS.writer.username).status).toBe(0)
      await s.until((e) => e.event === 'revoked', 5_000)
      expect(admin(system, 'users', 'enable', USERS.writer.username).status).toBe(0)
    })
  })

  it('bounds streams per caller (429 with Retry-After), anonymous callers counted per address', async () => {
    const mine: SseStream[] = []
    for (let i = 0; i < 8; i++) mine.push(await open('beta'))
    const refused = await open('beta')
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
    expectError({ status: refused.status, headers: refused.headers, body: JSON.parse(refused.text) }, 429, 'TOO_MANY_REQUESTS')
    // another caller is not held back by beta's streams
    const other = await open('alpha')
    expect(other.status).toBe(200)
    other.close()
    for (const s of mine) s.close()
    // once closed, they count no more
    await new Promise((resolve) => setTimeout(resolve, 300))
    const again = await open('beta')
    expect(again.status).toBe(200)
    again.close()
  })
})
