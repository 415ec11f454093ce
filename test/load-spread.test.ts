import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServices, type Services } from './support/services.js'
import { removeDir } from './support/system.js'
import { must } from './support/must.js'

// Two objects processes behind one gateway address, as a headless Service's pods are behind one DNS
// name: calls spread over both (round_robin), and losing one loses only the calls it was serving.
let services: Services
beforeAll(async () => {
  services = await startServices({ LOG_LEVEL: 'debug', READ_CACHE: 'false' }, { objectsReplicas: 2 })
})
afterAll(async () => {
  await services?.stop()
  if (services) removeDir(services.dataDir)
})

/** GetObject calls a replica has answered, from its debug log (one `rpc` line per call). */
const served = (replica: number) => services.objectsOutput(replica).split('\n')
  .filter((line) => line.includes('"rpc":"content.v1.ObjectService/GetObject"')).length

interface Outcome { started: number, ended: number, status: number }

/** `workers` clients reading in a loop until `until()` says stop. */
async function readLoop (workers: number, until: () => boolean): Promise<Outcome[]> {
  const outcomes: Outcome[] = []
  await Promise.all(Array.from({ length: workers }, async () => {
    while (!until()) {
      const started = performance.now()
      const status = await fetch(`${services.base}/objects/1`).then(async (res) => {
        await res.arrayBuffer()
        return res.status
      }, () => 0)
      outcomes.push({ started, ended: performance.now(), status })
    }
  }))
  return outcomes
}

describe('objects replicas behind one address', () => {
  it('both replicas serve reads', async () => {
    const before = [served(0), served(1)]
    let sent = 0
    const outcomes = await readLoop(4, () => sent++ >= 200)
    expect(outcomes.every((o) => o.status === 200)).toBe(true)
    const counted = () => [served(0) - must(before[0]), served(1) - must(before[1])]
    // a replica logs each call as it answers; the last lines may still be in the pipe
    await expect.poll(() => must(counted()[0]) + must(counted()[1])).toBeGreaterThanOrEqual(200)
    const counts = counted()
    // round_robin alternates; pick_first would leave one replica at 0
    for (const count of counts) expect(count).toBeGreaterThan(50)
  })

  it('killing one replica under load fails only the calls it was serving; later requests all succeed on the other', async () => {
    let stop = false
    const loop = readLoop(6, () => stop)
    await new Promise((r) => setTimeout(r, 500))
    const killStarted = performance.now()
    await services.killObjects(1)
    const killed = performance.now()
    await new Promise((r) => setTimeout(r, 1_500))
    stop = true
    const outcomes = await loop

    const failed = outcomes.filter((o) => o.status !== 200)
    const inFlight = outcomes.filter((o) => o.started <= killed && o.ended >= killStarted)
    const after = outcomes.filter((o) => o.started > killed)
    expect(after.length).toBeGreaterThan(50)
    expect(after.filter((o) => o.status !== 200)).toEqual([])
    expect(failed.every((o) => inFlight.includes(o))).toBe(true)
    expect(failed.every((o) => o.status === 503)).toBe(true)
  })
})
