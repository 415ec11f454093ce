import { chromium, type Browser } from 'playwright-core'
import { CHROMIUM, CHROMIUM_ARGS, HAS_CHROMIUM, browserSuite } from './support/chromium.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, removeDir, startSystem, type RunningSystem } from './support/system.js'
import { client, create, login } from './support/writer.js'


/** Decisions §17 in a browser: an EventSource cannot send Authorization, so it opens the stream with a ticket. */
describe.skipIf(!HAS_CHROMIUM)(browserSuite("a browser's EventSource on GET /changes"), () => {
  let system: RunningSystem
  let browser: Browser

  beforeAll(async () => {
    system = await startSystem()
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  })
  afterAll(async () => {
    await browser?.close()
    await system?.stop()
    if (system) removeDir(system.dataDir)
  })

  it('opens with a ticket, receives the events of a change made through the API, and a used ticket is refused', async () => {
    const token = await login(system.base)
    const ticket = (await http(system.base, 'POST', '/changes/tickets', { headers: { authorization: `Bearer ${token}` } })).body.data.ticket as string
    const page = await browser.newPage()
    await page.goto(`${system.base}/docs`)
    await page.evaluate((t) => {
      const w = globalThis as unknown as { told: { type: string, id: string, data: unknown }[], opened: boolean }
      w.told = []
      w.opened = false
      const source = new EventSource(`/changes?ticket=${t}`)
      source.onopen = () => { w.opened = true }
      for (const type of ['object.created', 'child.added']) {
        source.addEventListener(type, (e) => { w.told.push({ type, id: (e as MessageEvent).lastEventId, data: JSON.parse((e as MessageEvent).data) }) })
      }
    }, ticket)
    await page.waitForFunction(() => (globalThis as unknown as { opened: boolean }).opened, undefined, { timeout: 10_000 })
    const id = await create(client(system.base, token), { object_type: 'document', title: 'Seen by a browser', parents: [1] })
    await page.waitForFunction((n) => (globalThis as unknown as { told: { data: { data: { object_id: number } } }[] }).told
      .some((e) => e.data.data.object_id === n), id, { timeout: 10_000 })
    const told = await page.evaluate(() => (globalThis as unknown as { told: { type: string, id: string, data: { type: string, data: { object_id: number } } }[] }).told)
    expect(told.filter((e) => e.data.data.object_id === id).map((e) => [e.type, e.data.type])).toEqual([['object.created', 'object.created'], ['child.added', 'child.added']])
    for (const e of told) expect(e.id).toMatch(/^\d+\.[A-Za-z0-9-]+$/)
    // the page's ticket is spent: another EventSource with it gets the 401 and errors
    const refused = await page.evaluate((t) => new Promise<number>((resolve) => {
      const again = new EventSource(`/changes?ticket=${t}`)
      again.onerror = () => { resolve(again.readyState); again.close() }
    }), ticket)
    expect(refused).toBe(2) // CLOSED: the browser does not retry a 401
    await page.close()
  })
})
