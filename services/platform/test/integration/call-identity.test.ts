import * as grpc from '@grpc/grpc-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadContentProtos, type v1 } from '@content/protos'
import { REASON_KEY, toTransportError } from '../../src/errors.js'
import { identityOf, type Caller } from '../../src/identity/call-identity.js'
import { createLogger } from '../../src/logger.js'
import { checkHealth, createClient } from '../../src/rpc/client.js'
import { createRpcServer, type RpcServer, type ServiceImpl } from '../../src/rpc/server.js'
import { openServerStream, serverStreamHandler } from '../../src/rpc/streams.js'
import { testIdentity, userTokenFor } from '../../src/testing.js'
import { must } from '../support/must.js'

// A backend that answers who it believes is calling: ListGroups is administration, GetUser and
// Revoke echo the identity the server verified (Revoke's request has a caller field a sender may forge).
const silent = createLogger({ service: 'test', level: 'silent' })
const { AuthService, PosterService } = loadContentProtos().content.v1
const unused = () => { throw new Error('not used by this test') }

let server: RpcServer
let address: string
const seen: { peer: string, caller: Caller, requestCaller?: unknown }[] = []

beforeAll(async () => {
  server = createRpcServer(silent, { identity: testIdentity('auth').verifiers })
  server.add<v1.AuthServiceHandlers>(AuthService.service, {
    Login: unused, Refresh: unused, CreateUser: unused, CreateGroup: unused, ImportAccounts: unused, ExchangeApiKey: unused, ExchangePreviewToken: unused,
    ListUsers: unused, SetPassword: unused, SetDisabled: unused, DeleteUser: unused, CreateApiKey: unused, ListApiKeys: unused, RevokeApiKey: unused,
    IssueStreamTicket: unused, RedeemStreamTicket: unused, CheckSessions: unused, ExportAccounts: unused,
    ListGroups: async () => ({ groups: [{ name: 'administrator', backend_auth: true }] }),
    GetUser: async (req, call) => {
      const { peer, caller } = identityOf(call)
      seen.push({ peer, caller })
      return { id: req.user_id, username: peer, name: '', email: '', groups: caller.groups, created: 0, disabled: false }
    },
    Revoke: async (req, call) => {
      seen.push({ peer: identityOf(call).peer, caller: identityOf(call).caller, requestCaller: req.caller })
      return {}
    },
  } as ServiceImpl<v1.AuthServiceHandlers>, 'content.v1.AuthService', { administration: ['ListGroups'] })
  server.add<v1.PosterServiceHandlers>(PosterService.service, {
    GetPoster: unused, GetStats: unused, Upload: unused, ImportFile: unused, GetThumbnail: unused,
    GetOriginal: serverStreamHandler<v1.GetOriginalRequest__Output, v1.FileChunk>('GetOriginal', async function * (_req, _signal, call) {
      yield { chunk: Buffer.from(String(identityOf(call).caller.user_id)) }
    }, silent),
  } as ServiceImpl<v1.PosterServiceHandlers>, 'content.v1.PosterService')
  address = `127.0.0.1:${await server.listen('127.0.0.1', 0)}`
})
afterAll(async () => { await server.shutdown(500) })

const clientAs = (name: string, secret = testIdentity(name).identity.secret) =>
  createClient<v1.AuthServiceDefinition>(AuthService, address, { timeoutMs: 2_000, identity: { name, secret } })

/** A client of the plain generated kind: no service token at all, as any process on the network could make. */
function bareCall (metadata: grpc.Metadata): Promise<unknown> {
  const client = new AuthService(address, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    GetUser(req: object, md: grpc.Metadata, cb: (err: unknown) => void): void
  }
  return new Promise((resolve) => client.GetUser({ user_id: 1 }, metadata, (err) => { client.close(); resolve(err) }))
}

/** The status and reason on the wire (what a gateway turns into a plain 500 when it is its own credentials that fail) */
const reasonOf = (err: unknown) => {
  const e = err as grpc.ServiceError
  return { code: grpc.status[e.code], reason: e.metadata.get(REASON_KEY)[0] }
}

describe('authenticated calls between services', () => {
  it('when a call carries no service token, or one signed with another secret, then UNAUTHENTICATED before any handler runs', async () => {
    const before = seen.length
    expect(reasonOf(await bareCall(new grpc.Metadata()))).toEqual({ code: 'UNAUTHENTICATED', reason: 'SERVICE_AUTHENTICATION_REQUIRED' })
    const forged = new grpc.Metadata()
    forged.set('x-service-token', 'eyJhbGciOiJub25lIn0.e30.')
    expect(reasonOf(await bareCall(forged))).toEqual({ code: 'UNAUTHENTICATED', reason: 'SERVICE_TOKEN_INVALID' })
    const outsider = clientAs('gateway', 'another-secret-that-is-32-bytes-long!!')
    expect(reasonOf(await outsider.GetUser({ user_id: 1 }).catch((e: unknown) => e))).toEqual({ code: 'UNAUTHENTICATED', reason: 'SERVICE_TOKEN_INVALID' })
    outsider.close()
    expect(seen.length).toBe(before)
    // a gateway whose own credentials are refused answers its client 500, not 401: the fault is the deployment's
    expect(toTransportError(await bareCall(new grpc.Metadata()))).toMatchObject({ httpStatus: 500, reason: 'INTERNAL_ERROR', expose: false })
  })

  it('when a service calls with its token, then the server knows which service it is, and without a user token the caller is anonymous', async () => {
    const client = clientAs('gateway')
    expect((await client.GetUser({ user_id: 1 })).username).toBe('gateway')
    expect(seen.at(-1)).toEqual({ peer: 'gateway', caller: { user_id: 0, groups: [], may_write: false } })
    client.close()
  })

  it('when a request names a caller, then it is replaced by the one the access token proves', async () => {
    const client = clientAs('gateway')
    const forged = { user_id: 1, groups: ['administrator'], may_write: true }
    await client.Revoke({ caller: forged, refresh_token: 'x' })
    expect(seen.at(-1)).toMatchObject({ caller: { user_id: 0 }, requestCaller: { user_id: 0, groups: [] } })
    await client.Revoke({ caller: forged, refresh_token: 'x' }, { userToken: await userTokenFor({ user_id: 5, groups: ['members'] }) })
    expect(seen.at(-1)).toMatchObject({ caller: { user_id: 5, groups: ['members'] }, requestCaller: { user_id: 5, groups: ['members'] } })
    client.close()
  })

  it('when the access token is malformed or its claims were changed, then UNAUTHENTICATED with the token reason', async () => {
    const client = clientAs('gateway')
    const valid = must((await userTokenFor({ user_id: 5, groups: [] })))
    const [header, payload] = valid.split('.')
    const elevated = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(must(payload), 'base64url').toString()), groups: ['administrator'] })).toString('base64url')
    for (const token of ['nonsense', `${header}.${elevated}.${valid.split('.')[2]}`]) {
      expect(reasonOf(await client.GetUser({ user_id: 5 }, { userToken: token }).catch((e: unknown) => e))).toEqual({ code: 'UNAUTHENTICATED', reason: 'TOKEN_INVALID' })
    }
    client.close()
  })

  it('when an administration method is called, then only an administrator\'s token passes', async () => {
    const client = clientAs('gateway')
    expect(reasonOf(await client.ListGroups({}).catch((e: unknown) => e))).toEqual({ code: 'UNAUTHENTICATED', reason: 'AUTHENTICATION_REQUIRED' })
    const editor = await userTokenFor({ user_id: 5, groups: ['editor'], may_write: true })
    expect(reasonOf(await client.ListGroups({}, { userToken: editor }).catch((e: unknown) => e))).toEqual({ code: 'PERMISSION_DENIED', reason: 'ADMINISTRATOR_REQUIRED' })
    const admin = await userTokenFor({ user_id: 1, groups: ['administrator'] })
    expect((await client.ListGroups({}, { userToken: admin })).groups).toHaveLength(1)
    client.close()
  })

  it('when a stream is opened, then the same checks run and its handler sees the verified caller', async () => {
    const poster = createClient<v1.PosterServiceDefinition, v1.PosterServiceClient>(PosterService, address, { timeoutMs: 2_000, identity: testIdentity('gateway').identity })
    const read = async (userToken?: string) => {
      const chunks: Buffer[] = []
      for await (const m of openServerStream<v1.GetOriginalRequest, v1.FileChunk__Output>(poster.raw.GetOriginal.bind(poster.raw), { object_id: '1', file_name: 'x' }, { timeoutMs: 2_000, userToken }) as AsyncIterable<v1.FileChunk__Output>) chunks.push(must(m.chunk))
      return Buffer.concat(chunks).toString()
    }
    expect(await read(await userTokenFor({ user_id: 9, groups: [] }))).toBe('9')
    expect(await read()).toBe('0')
    expect(reasonOf(await read('nonsense').catch((e: unknown) => e))).toEqual({ code: 'UNAUTHENTICATED', reason: 'TOKEN_INVALID' })
    poster.close()
  })

  it('when the health service is asked, then it answers without credentials (probes have none)', async () => {
    expect(await checkHealth(address, 1_000)).toBe(true)
  })
})
