import { spawnSync } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startServices, type Services } from './support/services.js'
import { ADMIN, removeDir, ROOT } from './support/system.js'
import { client, create, login, type Client } from './support/writer.js'
import { must } from './support/must.js'

interface Received { id: string, type: string, seq: number, data: Record<string, unknown>, verified: boolean, at: number }

/**
 * Webhooks as a new administrator sets them up: the admin tool subscribes a loopback receiver, content
 * changes through the gateway, and the receiver verifies every signature. The objects service is killed
 * and restarted in between: no event is lost, and a repeat is a retry (same webhook-id).
 */
describe('webhooks end to end', () => {
  let services: Services
  let admin: Client
  let server: Server
  let url: string
  let secret = ''
  let answer = 204
  const got: Received[] = []

  function tool (...args: string[]) {
    const run = spawnSync('npm', ['run', '--silent', 'admin', '--', ...args], {
      cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, OBJECTS_SERVICE_ADDR: services.objectsAddr, AUTH_SERVICE_ADDR: services.authAddr, DATA_DIR: services.dataDir, ADMIN_PASSWORD: ADMIN.password },
    })
    return { status: run.status, stdout: run.stdout, stderr: run.stderr, json: () => JSON.parse(must(run.stdout.trim().split('\n').at(-1))) as unknown }
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = ''
      req.on('data', (c: Buffer) => { body += c.toString() })
      req.on('end', () => {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]))
        let verified = false
        try {
          new Webhook(secret).verify(body, headers)
          verified = true
        } catch { /* recorded as unverified */ }
        const message = JSON.parse(body) as { type: string, data: Record<string, unknown> & { seq: number } }
        got.push({ id: must(headers['webhook-id']), type: message.type, seq: message.data.seq, data: message.data, verified, at: Date.now() })
        res.writeHead(answer).end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
    services = await startServices({ WEBHOOK_ALLOW_PRIVATE: 'true' })
    admin = client(services.base, await login(services.base))
  })
  afterAll(async () => {
    await services?.stop()
    if (services) removeDir(services.dataDir)
    await new Promise((resolve) => server?.close(resolve))
  })

  it('when subscribed with the admin tool, then creates, relations, moves and deletes arrive signed and in order, across a restart', async () => {
    expect(tool('webhooks', 'add', 'ftp://example.org/x', '--events', '*')).toMatchObject({ status: 1, stderr: expect.stringMatching(/http or https/) })
    expect(tool('webhooks', 'add', url, '--events', 'object.exploded')).toMatchObject({ status: 1, stderr: expect.stringMatching(/unknown event type/) })
    expect(tool('webhooks', 'add', url)).toMatchObject({ status: 2, stderr: expect.stringMatching(/--events/) })
    const before = await create(admin, { object_type: 'document', title: 'Before the subscription', parents: [1] })
    const added = tool('webhooks', 'add', url, '--events', '*', '--json')
    expect(added.status, added.stderr).toBe(0)
    const hook = added.json() as { id: string, secret: string, events: string[] }
    expect(hook).toMatchObject({ id: expect.stringMatching(/^wh_/), events: ['*'], secret: expect.stringMatching(/^whsec_/) })
    secret = hook.secret
    expect((tool('webhooks', 'list', '--json').json() as { id: string, secret?: string }[]).map((h) => [h.id, h.secret])).toEqual([[hook.id, undefined]])

    const section = await create(admin, { object_type: 'section', title: 'News', parents: [1] })
    const doc = await create(admin, { object_type: 'document', title: 'Story', parents: [section] })
    expect((await admin.post(`/objects/${doc}/relations/seealso`, [{ related_id: before }])).status).toBeLessThan(300)
    // everything so far has arrived; then the objects service goes away and comes back, and the receiver
    // fails for a while meanwhile (a failure before the kill would hold the later events back behind it)
    await vi.waitFor(() => expect(got.some((g) => g.type === 'relation.created')).toBe(true), { timeout: 10_000, interval: 50 })
    answer = 500
    await services.killObjects()
    await services.startObjects()
    await vi.waitFor(async () => expect((await admin.get(`/objects/${doc}`)).status).toBe(200), { timeout: 10_000 })
    expect((await admin.post('/objects', { id: doc, title: 'Story, updated' })).status).toBe(200)
    // the restarted process delivers once the killed one's lease has lapsed (10 s); its first answer is a 500
    await vi.waitFor(() => expect(got.some((g) => g.type === 'object.updated')).toBe(true), { timeout: 20_000, interval: 100 })
    answer = 204
    expect((await admin.post(`/objects/1/children`, [{ child_id: doc }])).status).toBeLessThan(300)
    expect((await admin.del(`/objects/${section}/children/${doc}`)).status).toBe(204)
    expect((await admin.del(`/objects/${before}`)).status).toBe(204)
    expect((await admin.post(`/trash/${before}/restore`, {})).status).toBe(200)
    expect((await admin.del(`/objects/${before}`)).status).toBe(204)
    expect((await admin.del(`/trash/${before}`)).status).toBe(204)

    const expected = [
      ['object.created', section], ['child.added', section], ['object.created', doc], ['child.added', doc],
      ['relation.created', doc], ['object.updated', doc], ['child.added', doc], ['child.removed', doc],
      // decisions §16: a delete trashes, a restore brings back, a purge deletes
      ['object.trashed', before], ['object.restored', before], ['object.trashed', before], ['object.deleted', before],
    ]
    // retries past the 5 s first backoff: the receiver failed at least once
    await vi.waitFor(() => expect(new Set(got.map((g) => g.seq)).size).toBe(expected.length), { timeout: 30_000, interval: 200 })
    const firsts = got.filter((g, i) => got.findIndex((h) => h.seq === g.seq) === i)
    expect(firsts.map((g) => [g.type, g.data.object_id])).toEqual(expected)
    expect(firsts.map((g) => g.seq)).toEqual([...firsts.map((g) => g.seq)].sort((a, b) => a - b))
    expect(got.every((g) => g.verified)).toBe(true)
    // a repeat is a retry of the same delivery, never a second one
    for (const g of got) expect(got.filter((h) => h.seq === g.seq).every((h) => h.id === g.id)).toBe(true)
    expect(must(firsts.find((g) => g.type === 'relation.created')).data).toMatchObject({ relation: 'seealso', related_id: before, related_type: 'document' })
    expect(JSON.stringify(got)).not.toMatch(/Story|News/) // ids and types only

    type Delivery = { id: string, status: string, attempts: number }
    const deliveries = await vi.waitFor(() => {
      const list = tool('webhooks', 'deliveries', hook.id, '--json').json() as Delivery[]
      expect(list.map((d) => d.status)).toEqual(expected.map(() => 'delivered'))
      return list
    })
    expect(deliveries.some((d) => d.attempts > 1)).toBe(true)
    const again = must(deliveries[0])
    const count = got.length
    expect(tool('webhooks', 'redeliver', again.id)).toMatchObject({ status: 0, stdout: expect.stringMatching(/queued again/) })
    await vi.waitFor(() => expect(got.length).toBe(count + 1))
    expect(must(got.at(-1)).id).toBe(again.id)

    expect(tool('webhooks', 'remove', hook.id)).toMatchObject({ status: 0 })
    expect(tool('webhooks', 'remove', hook.id)).toMatchObject({ status: 1, stderr: expect.stringMatching(/no webhook/) })
    await create(admin, { object_type: 'document', title: 'After removal', parents: [1] })
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(got.length).toBe(count + 1)
  }, 90_000)

  it('when a publication window opens and closes, then a subscriber gets object.published and object.unpublished once each, within seconds, with no write', async () => {
    const added = tool('webhooks', 'add', url, '--events', 'object.published,object.unpublished', '--json')
    expect(added.status, added.stderr).toBe(0)
    secret = (added.json() as { secret: string }).secret
    got.length = 0
    const anonymous = client(services.base, '')
    const start = Date.now() + 3_000
    // longer than the lateness allowed below, so the read after a late object.published still finds it open
    const end = start + 4_000
    const doc = await create(admin, {
      object_type: 'document', title: 'Opens soon', parents: [1], start_date: new Date(start).toISOString(), end_date: new Date(end - 1).toISOString(),
    })
    expect((await anonymous.get(`/objects/${doc}`)).status).toBe(404)
    await vi.waitFor(() => expect(got.map((g) => g.type)).toContain('object.published'), { timeout: 15_000, interval: 50 })
    const published = must(got.find((g) => g.type === 'object.published'))
    expect(published.at).toBeGreaterThanOrEqual(start)
    expect(published.at - start).toBeLessThan(3_000)
    expect((await anonymous.get(`/objects/${doc}`)).status).toBe(200)
    await vi.waitFor(() => expect(got.map((g) => g.type)).toContain('object.unpublished'), { timeout: 15_000, interval: 50 })
    expect((await anonymous.get(`/objects/${doc}`)).status).toBe(404)
    // past the 5 s safety round: nothing more comes
    await new Promise((resolve) => setTimeout(resolve, 6_000))
    expect(got.map((g) => [g.type, g.data.object_id, g.data.object_type])).toEqual([['object.published', doc, 'document'], ['object.unpublished', doc, 'document']])
    expect(got.every((g) => g.verified)).toBe(true)
  }, 60_000)
})
