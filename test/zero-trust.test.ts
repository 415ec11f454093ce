import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as grpc from '@grpc/grpc-js'
import { createClient, REASON_KEY } from '@content/platform'
import { loadContentProtos, type v1 } from '@content/protos'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USERS } from './support/reads-fixtures.js'
import { startSeeded, type SeededSystem } from './support/seeded.js'
import { http } from './support/system.js'

// The attacks of a process that can reach the backends' gRPC ports, replayed against `npm start`:
// first without the service secret (any pod, any process on the host), then with it (a compromised
// service), which still cannot act for a user whose token it does not hold.
const { AuthService, ObjectService } = loadContentProtos().content.v1
const FORGED_ADMIN = { user_id: 1, groups: ['administrator'], may_write: true }

type Outcome = { code: string, reason: string | undefined }
const outcome = (err: unknown): Outcome => {
  const e = err as grpc.ServiceError
  if (typeof e?.code !== 'number') throw new Error(`the call succeeded: ${JSON.stringify(err)}`)
  return { code: grpc.status[e.code], reason: e.metadata?.get(REASON_KEY)[0] as string | undefined }
}

describe('backends accept only authenticated peers and verify the user themselves', () => {
  let s: SeededSystem
  let services: { objects: string, auth: string }
  let secret: string
  beforeAll(async () => {
    s = await startSeeded()
    services = JSON.parse(readFileSync(join(s.system.dataDir, 'services.json'), 'utf8'))
    secret = readFileSync(join(s.system.dataDir, 'service-secret'), 'utf8')
  })
  afterAll(async () => { await s?.stop() })

  /** Plain generated clients, as anyone with the protos could build: no service token. */
  function bare () {
    const auth = new AuthService(services.auth, grpc.credentials.createInsecure()) as unknown as v1.AuthServiceClient
    const objects = new ObjectService(services.objects, grpc.credentials.createInsecure()) as unknown as v1.ObjectServiceClient
    const call = <R>(run: (cb: (err: unknown, res?: R) => void) => void) => new Promise<unknown>((resolve) => run((err, res) => resolve(err ?? res)))
    return { auth, objects, call, close: () => { (auth as unknown as grpc.Client).close(); (objects as unknown as grpc.Client).close() } }
  }

  it('without the service secret, every attack of the issue is UNAUTHENTICATED and changes nothing', async () => {
    const { auth, objects, call, close } = bare()
    const refused = { code: 'UNAUTHENTICATED', reason: 'SERVICE_AUTHENTICATION_REQUIRED' }
    try {
      expect(outcome(await call((cb) => auth.CreateUser({ username: 'mallory', password: 'mallory-pass-1', groups: ['administrator'], name: '', email: '' }, cb)))).toEqual(refused)
      expect(outcome(await call((cb) => objects.SaveObject({ caller: FORGED_ADMIN, body_json: JSON.stringify({ data: { id: s.refs.welcome, title: 'owned' } }), writable_types: [] }, cb)))).toEqual(refused)
      expect(outcome(await call((cb) => objects.SetPermissions({ object_id: String(s.refs['members-doc']), read_groups: [], write_groups: [] }, cb)))).toEqual(refused)
      expect(outcome(await call((cb) => objects.GetObject({ caller: FORGED_ADMIN, object_id: String(s.refs['members-doc']) }, cb)))).toEqual(refused)
      for (let i = 0; i < 12; i++) {
        expect(outcome(await call((cb) => auth.Login({ username: USERS.member.username, password: 'wrong', client_address: `10.0.0.${i}` }, cb)))).toEqual(refused)
      }
    } finally {
      close()
    }
    expect((await s.get(`/objects/${s.refs.welcome}`)).body.data.object.title).toBe('Welcome')
    expect((await s.get(`/objects/${s.refs['members-doc']}`)).status).toBe(401)
    expect((await http(s.system.base, 'POST', '/auth', { body: { username: 'mallory', password: 'mallory-pass-1' } })).status).toBe(401)
  })

  it('with the service secret but no user token, a forged caller is anonymous and administration is refused', async () => {
    const settings = { timeoutMs: 5_000, identity: { name: 'poster', secret } }
    const auth = createClient<v1.AuthServiceDefinition>(AuthService, services.auth, settings)
    const objects = createClient<v1.ObjectServiceDefinition>(ObjectService, services.objects, settings)
    const fail = (p: Promise<unknown>) => p.then((r) => r, (e: unknown) => e).then(outcome)
    try {
      expect(await fail(auth.CreateUser({ username: 'mallory', password: 'mallory-pass-1', groups: ['administrator'], name: '', email: '' })))
        .toEqual({ code: 'UNAUTHENTICATED', reason: 'AUTHENTICATION_REQUIRED' })
      expect(await fail(objects.SaveObject({ caller: FORGED_ADMIN, body_json: JSON.stringify({ data: { id: s.refs.welcome, title: 'owned' } }), writable_types: [] })))
        .toEqual({ code: 'UNAUTHENTICATED', reason: 'AUTHENTICATION_REQUIRED' })
      expect(await fail(objects.SetPermissions({ object_id: String(s.refs['members-doc']), read_groups: [], write_groups: [] })))
        .toEqual({ code: 'UNAUTHENTICATED', reason: 'AUTHENTICATION_REQUIRED' })
      expect(await fail(objects.GetObject({ caller: FORGED_ADMIN, object_id: String(s.refs['members-doc']) })))
        .toEqual({ code: 'UNAUTHENTICATED', reason: 'OBJECT_PROTECTED' })
      // an editor's own token does not make it an administrator
      const editor = { userToken: s.tokens.editor }
      expect(await fail(auth.CreateUser({ username: 'mallory', password: 'mallory-pass-1', groups: ['administrator'], name: '', email: '' }, editor)))
        .toEqual({ code: 'PERMISSION_DENIED', reason: 'ADMINISTRATOR_REQUIRED' })
      // the address a service other than the gateway sends is not believed: its failures add up
      const outcomes: string[] = []
      for (let i = 0; i < 12; i++) {
        outcomes.push((await fail(auth.Login({ username: USERS.member.username, password: 'wrong', client_address: `10.1.0.${i}` }))).reason ?? '')
      }
      expect(outcomes.slice(0, 5)).toEqual(Array(5).fill('LOGIN_FAILED'))
      expect(outcomes.slice(5)).toEqual(Array(7).fill('TOO_MANY_REQUESTS'))
    } finally {
      auth.close()
      objects.close()
    }
    expect((await s.get(`/objects/${s.refs.welcome}`)).body.data.object.title).toBe('Welcome')
    expect((await s.get(`/objects/${s.refs['members-doc']}`)).status).toBe(401)
  })
})
