import Database from 'better-sqlite3'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startServices, type Services } from './support/services.js'
import { removeDir } from './support/system.js'
import { client, create, login } from './support/writer.js'

// Two objects processes on one SQLite store, as `objectsReplicas` runs them: each runs its own
// scheduled-publication rounds, and every window boundary still reaches the outbox exactly once.
let services: Services
beforeAll(async () => {
  services = await startServices({}, { objectsReplicas: 2 })
})
afterAll(async () => {
  await services?.stop()
  if (services) removeDir(services.dataDir)
})

/** The window events in the store's outbox, read from its file as a third process. */
function windowEvents (): { type: string, object_id: number }[] {
  const db = new Database(join(services.dataDir, 'objects.sqlite'), { readonly: true, fileMustExist: true })
  try {
    return db.prepare("SELECT type, object_id FROM changes WHERE type IN ('object.published', 'object.unpublished') ORDER BY seq").all() as { type: string, object_id: number }[]
  } finally {
    db.close()
  }
}

describe('scheduled publication with two objects processes on one store', () => {
  it('when windows open and close, then each boundary is announced once between the two, and readers see the object exactly inside its window', async () => {
    const admin = client(services.base, await login(services.base))
    const anonymous = client(services.base, '')
    const start = Date.now() + 3_000
    const ids: number[] = []
    for (let i = 0; i < 4; i++) {
      const opens = start + i * 300
      ids.push(await create(admin, {
        object_type: 'document', title: `Window ${i}`, parents: [1],
        start_date: new Date(opens).toISOString(), end_date: new Date(opens + 999).toISOString(),
      }))
    }
    expect((await anonymous.get(`/objects/${ids[0]}`)).status).toBe(404)
    await vi.waitFor(() => expect(windowEvents().filter((e) => e.type === 'object.published')).toHaveLength(ids.length), { timeout: 15_000, interval: 100 })
    expect((await anonymous.get(`/objects/${ids.at(-1)}`)).status).toBe(200)
    await vi.waitFor(() => expect(windowEvents().filter((e) => e.type === 'object.unpublished')).toHaveLength(ids.length), { timeout: 15_000, interval: 100 })
    expect((await anonymous.get(`/objects/${ids[0]}`)).status).toBe(404)
    // past both processes' 5 s safety rounds: still once each
    await new Promise((resolve) => setTimeout(resolve, 6_000))
    const events = windowEvents().map((e) => `${e.type} ${e.object_id}`)
    expect([...events].sort()).toEqual(ids.flatMap((id) => [`object.published ${id}`, `object.unpublished ${id}`]).sort())
  }, 60_000)
})
