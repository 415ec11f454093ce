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
    return { status: res.status, text: await res.text() }
  }

  async function batchCalls (): Promise<number> {
    const urls = JSON.parse(readFileSync(join(system.dataDir, 'services.json'), 'utf8')).metrics as Record<string, string>
    const text = await (await fetch(String(urls.gateway))).text()
    const line = text.split('\n').find((l) => l.startsWith('rpc_client_call_duration_seconds_count') && l.includes('rpc_method="CallBatch"') && l.includes('rpc_grpc_status_code="0"'))
    return line ? Number(line.split(' ').pop()) : 0
  }

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
})
