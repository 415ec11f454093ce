import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { markersIn, seedBola, USERS } from './support/bola-fixtures.js'
import { removeDir, startSystem, type RunningSystem } from './support/system.js'
import { login } from './support/writer.js'

/**
 * Reads that reach the gateway in one event-loop turn share one call to the objects service
 * (COALESCE_READS, on by default). Callers with different rights, interleaved, must each get exactly
 * their own answer: the read cache is off so that every read makes that call.
 */
describe('coalesced reads: callers with different rights in one batch', () => {
  let system: RunningSystem
  let refs: Record<string, number>
  let token: string

  beforeAll(async () => {
    system = await startSystem({ READ_CACHE: 'false' })
    refs = await seedBola(system)
    token = await login(system.base, USERS['non-writer'])
  })
  afterAll(async () => {
    await system?.stop()
    if (system) removeDir(system.dataDir)
  })

  const read = async (path: string, bearer?: string) => {
    const res = await fetch(system.base + path, bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {})
    return { status: res.status, text: await res.text(), etag: res.headers.get('etag'), id: res.headers.get('x-request-id') }
  }

  /** The gateway's metric line that starts with `prefix` and holds every one of `parts`: its value, 0 when absent. */
  async function gatewayMetric (prefix: string, ...parts: string[]): Promise<number> {
    const urls = JSON.parse(readFileSync(join(system.dataDir, 'services.json'), 'utf8')).metrics as Record<string, string>
    const text = await (await fetch(String(urls.gateway))).text()
    const line = text.split('\n').find((l) => l.startsWith(prefix) && parts.every((p) => l.includes(p)))
    return line ? Number(line.split(' ').pop()) : 0
  }
  const batchCalls = () => gatewayMetric('rpc_client_call_duration_seconds_count', 'rpc_method="CallBatch"', 'rpc_grpc_status_code="0"')

  it('when a protected object is read at once by a reader, an anonymous caller, a bad token and a missing id, then each gets its own answer', async () => {
    const secret = `/objects/${refs.secDoc}`
    const before = await batchCalls()
    for (let round = 0; round < 40; round++) {
      const [reader, anonymous, badToken, missing, list] = await Promise.all([
        read(secret, token), read(secret), read(secret, 'not-a-token'), read('/objects/987654321', token), read(`/objects/${refs.pubSec}/children`),
      ])
      expect(reader.status).toBe(200)
      expect(markersIn(reader.text).length).toBeGreaterThan(0)
      expect(anonymous.status).toBe(401)
      expect(JSON.parse(anonymous.text).error.code).toBe('OBJECT_PROTECTED')
      expect(badToken.status).toBe(401)
      expect(missing.status).toBe(404)
      // the anonymous list beside them shows nothing protected
      expect(list.status).toBe(200)
      for (const answer of [anonymous, badToken, missing, list]) expect(markersIn(answer.text)).toEqual([])
    }
    // the rounds' reads did travel together
    expect(await batchCalls()).toBeGreaterThan(before)
  })

  it('when callers with different rights each ask the same page and object several times at once, then each caller\'s answers are the same bytes and ETag as its lone read, each with its own request id', async () => {
    const page = `/objects/${refs.pubSec}/children`
    const secret = `/objects/${refs.secDoc}`
    const alone = { readerPage: await read(page, token), anonymousPage: await read(page), readerSecret: await read(secret, token) }
    // the reader sees the protected document in the page; the anonymous caller does not
    expect(markersIn(alone.readerPage.text).length).toBeGreaterThan(0)
    expect(markersIn(alone.anonymousPage.text)).toEqual([])
    const shared = await gatewayMetric('content_shared_answers_total')
    for (let round = 0; round < 20; round++) {
      const asked: [keyof typeof alone, string, string | undefined][] = [
        ...Array(4).fill(['readerPage', page, token]), ...Array(4).fill(['anonymousPage', page, undefined]), ...Array(4).fill(['readerSecret', secret, token]),
      ]
      const answers = await Promise.all(asked.map(async ([which, path, bearer]) => ({ which, ...await read(path, bearer) })))
      for (const answer of answers) {
        const expected = alone[answer.which]
        expect([answer.status, answer.etag]).toEqual([200, expected.etag])
        expect(answer.text).toBe(expected.text)
      }
      expect(new Set(answers.map((a) => a.id)).size).toBe(answers.length)
    }
    // the same reads of one caller did come back once for several requests
    expect(await gatewayMetric('content_shared_answers_total')).toBeGreaterThan(shared)
  })
})
