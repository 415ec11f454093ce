import { createLogger } from '@content/platform'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ChangeEvent } from '../../src/core/change-events.js'
import { DEFAULT_COLUMNS } from '../../src/core/object-input.js'
import type { ObjectsStore } from '../../src/core/ports.js'
import type { Status } from '../../src/core/types.js'
import { startScheduledPublication, type ScheduledPublication } from '../../src/scheduled-publication.js'
import { createChangeFeed } from '../../src/server.js'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'
import { tempStoreFiles } from '../support/temp-store.js'
import { draft } from './store.contract.js'

const newFile = tempStoreFiles('objects-schedule-')
const log = createLogger({ service: 'objects', level: 'silent' })
const HOUR = 3_600_000

/** One objects service's share of the work: its store connection, its feed, and its scheduled-publication rounds. */
interface Service { store: ObjectsStore, told: ChangeEvent[], schedule: ScheduledPublication, stop(): Promise<void> }
const running = new Set<Service>()
afterEach(async () => { for (const s of running) await s.stop() })

async function startService (file: string, now: () => number): Promise<Service> {
  const store = openSqliteStore(file, { publicationNickname: 'publication', now })
  const feed = await createChangeFeed(store, now)
  const told: ChangeEvent[] = []
  feed.subscribe((m) => { told.push(...m.events) })
  // no safety interval here: every round is the start's, a boundary's, or the test's own
  const schedule = startScheduledPublication(store, feed, { statuses: ['on'], now, everyMs: HOUR }, log)
  const service: Service = {
    store, told, schedule,
    async stop () {
      running.delete(service)
      await schedule.round()
      schedule.stop()
      feed.close()
      await store.close()
    },
  }
  running.add(service)
  await schedule.round()
  return service
}

const windowed = (title: string, start: number | null, end: number | null, status: Status = 'on') =>
  ({ ...draft('document', title, { status }), columns: { ...DEFAULT_COLUMNS, title, start_date: start, end_date: end } })
const windowEventsOf = async (store: ObjectsStore) =>
  (await store.changes.after(0, 1_000)).filter((e) => e.type === 'object.published' || e.type === 'object.unpublished').map((e) => [e.type, e.object_id])

describe('scheduled publication (decisions §16)', () => {
  it('when a window opens and closes in real time, then each is announced once, within moments, to the change feed', async () => {
    const service = await startService(newFile(), Date.now)
    const start = Date.now() + 400
    const id = await service.store.objects.create(windowed('Soon', start, start + 400), Date.now())
    // the feed's timer at each boundary runs the round: the safety interval is an hour away
    await vi.waitFor(() => expect(service.told.some((e) => e.type === 'object.published')).toBe(true), { timeout: 3_000, interval: 20 })
    const published = service.told.find((e) => e.type === 'object.published')
    expect(published?.at).toBeGreaterThanOrEqual(start)
    expect(published?.at).toBeLessThan(start + 3_000) // "within seconds", with room for a loaded machine
    await vi.waitFor(() => expect(service.told.some((e) => e.type === 'object.unpublished')).toBe(true), { timeout: 3_000, interval: 20 })
    await service.schedule.round()
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(service.told.filter((e) => e.type !== 'object.created').map((e) => [e.type, e.object_id])).toEqual([['object.published', id], ['object.unpublished', id]])
    expect(await windowEventsOf(service.store)).toEqual([['object.published', id], ['object.unpublished', id]])
  })

  it('when the service is stopped across a boundary, then the restarted one announces it once, late, and later starts never again', async () => {
    const file = newFile()
    const clock = { now: 1_000 }
    const now = () => clock.now
    const first = await startService(file, now)
    clock.now = 1_100
    const id = await first.store.objects.create(windowed('Opens while down', 5_000, null), clock.now)
    await first.stop()
    clock.now = 9_000
    const second = await startService(file, now)
    expect(await windowEventsOf(second.store)).toEqual([['object.published', id]])
    const event = (await second.store.changes.after(0, 100)).find((e) => e.type === 'object.published')
    expect(event?.at).toBe(9_000) // recorded when announced
    clock.now = 9_500
    await second.schedule.round()
    await second.stop()
    const third = await startService(file, now)
    expect(await windowEventsOf(third.store)).toEqual([['object.published', id]])
  })

  it('when two services share one SQLite store, then a boundary is announced once between them', async () => {
    const file = newFile()
    const clock = { now: 1_000 }
    const now = () => clock.now
    const a = await startService(file, now)
    const b = await startService(file, now)
    const id = await a.store.objects.create(windowed('Shared', 5_000, 7_999), 1_100)
    for (const t of [5_000, 5_000, 6_000, 8_000, 8_000, 9_000]) {
      clock.now = t
      // two services are two processes, where one waits for the other's write lock (busy_timeout) while
      // that one's turn ends; in this one process a wait would block the turn it waits for, so the
      // rounds take turns here, and the file's watermark decides who announces
      await a.schedule.round()
      await b.schedule.round()
    }
    expect(await windowEventsOf(a.store)).toEqual([['object.published', id], ['object.unpublished', id]])
    // the other service's feed follows the same outbox: it tells each once too
    await vi.waitFor(() => expect(b.told.filter((e) => e.type === 'object.unpublished')).toHaveLength(1), { timeout: 3_000, interval: 50 })
    expect(b.told.filter((e) => e.type === 'object.published')).toHaveLength(1)
  })

  it('when a window is moved before its boundary, then nothing is announced at the old time and once at the new', async () => {
    const clock = { now: 1_000 }
    const service = await startService(newFile(), () => clock.now)
    const id = await service.store.objects.create(windowed('Moved', 5_000, null), 1_100)
    clock.now = 3_000
    await service.store.objects.update(id, { columns: { start_date: 8_000 }, user_id: 1, extras: {} }, clock.now)
    clock.now = 6_000
    await service.schedule.round()
    expect(await windowEventsOf(service.store)).toEqual([])
    clock.now = 8_000
    await service.schedule.round()
    clock.now = 8_500
    await service.schedule.round()
    expect(await windowEventsOf(service.store)).toEqual([['object.published', id]])
  })

  it('when an object is trashed or a draft, then its boundary passes silently', async () => {
    const clock = { now: 1_000 }
    const service = await startService(newFile(), () => clock.now)
    await service.store.objects.create(windowed('Draft', 5_000, null, 'draft'), 1_100)
    const trashed = await service.store.objects.create(windowed('Trashed', 5_000, null), 1_100)
    await service.store.trash.put(trashed, 1, 1_200)
    clock.now = 6_000
    await service.schedule.round()
    expect(await windowEventsOf(service.store)).toEqual([])
  })
})
