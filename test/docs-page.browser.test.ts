import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { CHROMIUM, CHROMIUM_ARGS, HAS_CHROMIUM, browserSuite } from './support/chromium.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { http, removeDir, ROOT, startSystem, type RunningSystem } from './support/system.js'


describe.skipIf(!HAS_CHROMIUM)(browserSuite('the reference page at /docs, in headless Chromium'), () => {
  let system: RunningSystem
  let browser: Browser

  beforeAll(async () => {
    system = await startSystem()
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  })
  afterAll(async () => {
    await browser?.close()
    await system.stop()
    removeDir(system.dataDir)
  })

  it('lists every operation of the live document, loads nothing from elsewhere, and runs "Try it out" against the system', async () => {
    const doc = (await http(system.base, 'GET', '/openapi.json')).body
    const expected = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`)).sort()
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const elsewhere: string[] = []
    const problems: string[] = []
    page.on('request', (request) => { if (!request.url().startsWith(system.base) && !request.url().startsWith('data:')) elsewhere.push(request.url()) })
    page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()) })
    page.on('pageerror', (err) => problems.push(String(err)))

    const answer = await page.goto(`${system.base}/docs`)
    expect(answer?.status()).toBe(200)
    await page.waitForSelector('.opblock', { timeout: 30_000 })
    // every tag section opens by default; read each operation's method and path
    const shown = await page.$$eval('.opblock', (blocks) => blocks.map((b) =>
      `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`))
    expect([...new Set(shown)].sort()).toEqual(expected)
    expect(await page.title()).toBe('Content objects API — reference')

    // Try it out: GET /objects/{object_id} with the publication's id
    const block = page.locator('.opblock-get', { has: page.locator('.opblock-summary-path[data-path="/objects/{object_id}"]') }).first()
    await block.locator('.opblock-summary').click()
    const tryIt = block.locator('button.try-out__btn')
    if (await tryIt.count() > 0 && (await tryIt.textContent())?.includes('Try it out')) await tryIt.click()
    await block.locator('tr[data-param-name="object_id"] input').fill('1')
    await block.locator('button.execute').click()
    const status = block.locator('.live-responses-table tr.response .response-col_status').first()
    await expect.poll(async () => (await status.textContent())?.trim(), { timeout: 15_000 }).toBe('200')
    const body = await block.locator('.live-responses-table tr.response .highlight-code pre').first().textContent()
    expect(JSON.parse(body ?? '')).toMatchObject({ api: 'objects', data: { object: { id: 1, nickname: 'publication' } } })

    mkdirSync(join(ROOT, '.reports'), { recursive: true })
    const shot = join(ROOT, '.reports', 'docs-page.png')
    await page.screenshot({ path: shot, fullPage: true })
    console.log(`reference page screenshot: ${shot}`)
    expect(elsewhere).toEqual([])
    expect(problems).toEqual([])
  })
})
