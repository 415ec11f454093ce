import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { forgetAnswersOf } from './support/contract-fetch.js'
import { startServices, type Services } from './support/services.js'
import { ADMIN, http, removeDir } from './support/system.js'

/**
 * Every spelling of a token in a URL, sent to a running system logging at info: no log line of any
 * service carries the token, however it was encoded.
 */
describe('tokens never reach the logs', () => {
  let services: Services
  beforeAll(async () => {
    services = await startServices({ LOG_LEVEL: 'info' })
    forgetAnswersOf(services.base) // these URLs are deliberately odd spellings the document does not describe
  })
  afterAll(async () => {
    await services?.stop()
    if (services) removeDir(services.dataDir)
  })

  it('when tokens come percent-encoded in query keys, values and paths, then the logs show none of them', async () => {
    const login = await http(services.base, 'POST', '/auth', { body: { username: ADMIN.username, password: ADMIN.password } })
    expect(login.status).toBe(200)
    const access = login.body.data.access_token as string
    const refresh = login.body.data.refresh_token as string
    const encodedFirst = (t: string) => `%${t.charCodeAt(0).toString(16).toUpperCase()}${t.slice(1)}`
    const reads = [
      `/objects/1?access_token=${access}`, `/objects/1?access%5Ftoken=${access}`, `/objects/1?%61ccess_token=${access}`,
      `/objects/1?ACCESS_TOKEN=${access}`, `/objects/1?access_token=${encodedFirst(access)}`, `/objects/1?page=1&access_token=${access}#x`,
    ]
    for (const path of reads) await http(services.base, 'GET', path)
    const deletes = [`/auth//${refresh}`, `/%61uth/${refresh}`, `//auth//${refresh}`, `/auth%2F${refresh}`, `/auth%2f${encodedFirst(refresh)}`, `/AUTH/${refresh}`, `/auth/${refresh}`]
    for (const path of deletes) await http(services.base, 'DELETE', path, { headers: { authorization: `Bearer ${access}` } })
    await http(services.base, 'POST', '/auth', { body: { grant_type: 'refresh_token', refresh_token: refresh } })
    await new Promise((resolve) => setTimeout(resolve, 300)) // the last lines are written
    const logs = services.output()
    expect(logs).toMatch(/"url":"\/objects\/1\?access_token=\[Redacted\]"/) // the requests were logged
    for (const secret of [access, refresh, access.slice(1), refresh.slice(1), ADMIN.password]) expect(logs).not.toContain(secret)
  })
})
