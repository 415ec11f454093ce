import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServices, type Services } from './support/services.js'
import { body, openStream, type SseStream } from './support/sse.js'
import { removeDir } from './support/system.js'
import { client, create, login, type Client } from './support/writer.js'

/**
 * Decisions §17 across gateways: two gateways on the same backends tell the same events; a client cut off
 * from one resumes on the other with nothing lost or repeated (LIVE_RECENT_EVENTS=0: every resume is
 * replayed by the objects service, as on a gateway that just restarted and holds nothing); a ticket is
 * used once whichever gateway takes it; the objects service restarting mid-stream loses nothing.
 */
describe('GET /changes across two gateways', () => {
  let services: Services
  let writer: Client
  let token: string
  const streams: SseStream[] = []

  const open = async (base: string, query = '', headers: Record<string, string> = {}) => {
    const s = await openStream(`${base}/changes${query}`, headers)
    streams.push(s)
    return s
  }
  /** [type, object_id, seq] of each change event */
  const told = (s: SseStream) => s.events.filter((e) => e.event !== 'reset').map((e) => [e.event, body(e).data.object_id, body(e).data.seq])

  beforeAll(async () => {
    services = await startServices({ LIVE_RECENT_EVENTS: '0', LIVE_PING_MS: '500' }, { gateways: 2 })
    token = await login(services.base)
    writer = client(services.base, token)
  })
  afterAll(async () => {
    for (const s of streams) s.close()
    await services?.stop()
    if (services) removeDir(services.dataDir)
  })

  it('a stream through each gateway sees the same events, in the same order', async () => {
    const [a, b] = [await open(services.bases[0] as string), await open(services.bases[1] as string)]
    const ids: number[] = []
    for (let i = 0; i < 5; i++) ids.push(await create(writer, { object_type: 'document', title: `Both ${i}`, parents: [1] }))
    for (const s of [a, b]) await s.until((e) => e.event === 'child.added' && body(e).data.object_id === ids.at(-1))
    expect(told(a)).toEqual(told(b))
    expect(told(a)).toHaveLength(10)
  })

  it('a client cut off from one gateway resumes on the other with nothing lost or twice', async () => {
    const first = await open(services.bases[0] as string)
    const before = await create(writer, { object_type: 'document', title: 'Before the cut', parents: [1] })
    const last = await first.until((e) => e.event === 'child.added' && body(e).data.object_id === before)
    first.close()
    const missed: number[] = []
    for (let i = 0; i < 3; i++) missed.push(await create(writer, { object_type: 'document', title: `While away ${i}`, parents: [1] }))
    const resumed = await open(services.bases[1] as string, '', { 'last-event-id': String(last.id) })
    const after = await create(writer, { object_type: 'document', title: 'After the resume', parents: [1] })
    await resumed.until((e) => e.event === 'child.added' && body(e).data.object_id === after)
    expect(resumed.events.filter((e) => e.event === 'reset')).toEqual([])
    expect(told(resumed).map(([type, id]) => [type, id])).toEqual([...missed, after].flatMap((id) => [['object.created', id], ['child.added', id]]))
    const seqs = told(resumed).map(([, , seq]) => Number(seq))
    expect(seqs[0]).toBe(Number(body(last).data.seq) + 1)
    expect(new Set(seqs).size).toBe(seqs.length)
  })

  it('a ticket is used once across gateways', async () => {
    const res = await fetch(`${services.bases[0]}/changes/tickets`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
    const { ticket } = (await res.json() as { data: { ticket: string } }).data
    const other = await open(services.bases[1] as string, `?ticket=${ticket}`)
    expect(other.status).toBe(200)
    const again = await open(services.bases[0] as string, `?ticket=${ticket}`)
    expect([again.status, JSON.parse(again.text).error.code]).toEqual([401, 'TICKET_INVALID'])
  })

  it('the objects service restarting mid-stream loses nothing: the gateway resumes its feed and the stream goes on', async () => {
    const s = await open(services.bases[0] as string)
    const before = await create(writer, { object_type: 'document', title: 'Before the restart', parents: [1] })
    await s.until((e) => e.event === 'child.added' && body(e).data.object_id === before)
    await services.killObjects()
    await services.startObjects()
    let after = 0
    for (let attempt = 0; attempt < 50 && after === 0; attempt++) {
      const res = await writer.post('/objects', { object_type: 'document', title: 'After the restart', parents: [1] })
      if (res.status === 201) after = res.body.data.object.id
      else await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(after).toBeGreaterThan(0)
    await s.until((e) => e.event === 'child.added' && body(e).data.object_id === after, 15_000)
    expect(s.events.filter((e) => e.event === 'reset')).toEqual([])
    const seqs = told(s).map(([, , seq]) => Number(seq))
    expect(seqs).toEqual(seqs.map((_, i) => (seqs[0] as number) + i))
  })
})
