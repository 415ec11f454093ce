import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServices, type Services } from './support/services.js'
import { http, removeDir } from './support/system.js'

// The gateway is ready when the backends every route needs answer; poster serves only media routes,
// so its outage degrades those to 503 and leaves the gateway in service.
let services: Services
beforeAll(async () => {
  services = await startServices({ READ_CACHE: 'false' })
  await services.killPoster()
})
afterAll(async () => {
  await services?.stop()
  if (services) removeDir(services.dataDir)
})

describe('with the poster service down', () => {
  it('the gateway stays ready and keeps serving objects', async () => {
    expect((await http(services.base, 'GET', '/readyz')).status).toBe(200)
    expect((await http(services.base, 'GET', '/objects/1')).status).toBe(200)
  })

  it('poster and media routes answer 503 with the error body', async () => {
    for (const path of ['/poster/1', '/thumbnails/1/x.jpg', '/media/1/x.jpg']) {
      const res = await http(services.base, 'GET', path)
      expect(res.status, path).toBe(503)
      expect(res.body.error, path).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' })
    }
  })
})
