import { testIdentity } from '@content/platform/testing'
import { createLogger, createRpcServer, DomainError, identityOf, sendHeaders, type Caller, type ServiceImpl } from '@content/platform'
import { loadContentProtos, RESPONSE_HEADERS, type v1 } from '@content/protos'
import type * as grpc from '@grpc/grpc-js'
import { CANNED, ObjectsFake } from './fake-objects.js'
import { PosterFake } from './fake-poster.js'
import { signToken } from './tokens.js'
import { must } from './must.js'

type ObjectsImpl = ServiceImpl<v1.ObjectServiceHandlers>
type TreeImpl = ServiceImpl<v1.TreeServiceHandlers>
type AuthImpl = ServiceImpl<v1.AuthServiceHandlers>
type PosterImpl = ServiceImpl<v1.PosterServiceHandlers>

/** A call as the fake received it, with the user its verified token names */
export interface Call { method: string, request: unknown, caller: Caller }

/** Canned gRPC backends on real servers (port 0); tests may replace any method per test. */
export interface FakeBackends {
  address: string
  objects: ObjectsImpl
  tree: TreeImpl
  auth: AuthImpl
  poster: PosterImpl
  /** the state behind the default poster methods (uploads seen, originals, knobs) */
  posterFake: PosterFake
  /** unary requests, and the request of server streams; client streams record null */
  calls: Call[]
  /**
   * Pushes the next feed message to every open WatchChanges stream: one event affecting `affects`, or a
   * reset, or a clock tick; a new `store_id` replaces the store. Writes through the fake emit their own.
   */
  emitChange(change: { store_id?: string, affects?: number[], reset?: boolean, clock?: boolean }): void
  /** the fake feed's position */
  readonly seq: number
  /** holds every feed message back until the returned release is called (a slow feed) */
  holdFeed(): () => void
  /** ends every open WatchChanges stream with an error */
  breakFeed(): void
  openStreams(): number
  close(): Promise<void>
}

const unimplemented = (what: string) => async (): Promise<never> => {
  throw new DomainError('NOT_IMPLEMENTED', `${what} is not implemented`)
}

const READS = new Set(['GetObject', 'ListObjects', 'GetRelationSummary', 'ListRelated', 'GetRelation', 'ListTree', 'GetChildPosition'])
const WRITES = new Set(['SaveObject', 'DeleteObject', 'SaveRelations', 'ReplaceRelation', 'DeleteRelation', 'SaveChildren', 'UpdateChild', 'RemoveChild'])

/** Every numeric id in a request or answer (fields named id, object_id, related_id, child_id, and numeric ids as strings). */
function idsIn (value: unknown, out = new Set<number>()): Set<number> {
  if (Array.isArray(value)) for (const v of value) idsIn(v, out)
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (/(^|_)id$/.test(key) && (typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v)))) out.add(Number(v))
      else idsIn(v, out)
    }
  }
  return out
}

interface FeedHooks { seq(): number, wrote(affects: number[]): void }

/**
 * Records every call; like the objects service, reads say which objects they depend on (here: every id in
 * the request and the answer) and writes say their change number, then emit their event on the feed.
 */
function recorder<T extends object> (calls: Call[], impl: T, service: string, feed: FeedHooks): T {
  const out: Record<string, unknown> = {}
  for (const [name, fn] of Object.entries(impl)) {
    out[name] = name === 'WatchChanges' ? fn : async (request: unknown, call: { sendMetadata?: unknown }) => {
      // a streaming handler gets the call itself: a server stream's request is on it, a client stream's comes later
      const streaming = typeof (request as { getPeer?: unknown }).getPeer === 'function'
      calls.push({ method: `${service}.${name}`, request: streaming ? (request as { request?: unknown }).request ?? null : request, caller: identityOf(streaming ? request as object : call).caller })
      const result: unknown = await must((impl as Record<string, (...args: unknown[]) => unknown>)[name])(request, call)
      if (READS.has(name)) sendHeaders(call as never, { [RESPONSE_HEADERS.dependsOn]: [...idsIn([request, result])].join(',') })
      if (WRITES.has(name)) {
        feed.wrote([...idsIn(request)])
        sendHeaders(call as never, { [RESPONSE_HEADERS.changeSeq]: String(feed.seq()) })
      }
      return result
    }
  }
  return out as T
}

export const FAKE_API_KEY = `ck_${'a'.repeat(16)}_${'b'.repeat(43)}`

function authImpl (): AuthImpl {
  const pair = async (id: number, groups: string[]) => ({ access_token: await signToken({ id, groups }), expires_in: 600, refresh_token: `refresh-${id}-new` })
  return {
    Login: async (req) => {
      if (req.username === 'flood') throw new DomainError('TOO_MANY_REQUESTS', 'too many failed logins', { retry_after: 42 })
      if (req.username !== 'admin' || req.password !== 'secret') throw new DomainError('LOGIN_FAILED', 'wrong username or password')
      return pair(7, ['administrator'])
    },
    Refresh: async (req) => {
      if (req.refresh_token !== 'good-refresh') throw new DomainError('REFRESH_TOKEN_INVALID', 'invalid refresh token')
      return pair(7, ['administrator'])
    },
    // FAKE_API_KEY is the one valid key: it acts as user 9 of group editor
    ExchangeApiKey: async (req) => {
      if (req.secret !== FAKE_API_KEY) throw new DomainError('TOKEN_INVALID', 'the API key is invalid, expired or revoked')
      return { access_token: await signToken({ id: 9, groups: ['editor'], backend_auth: true }), expires_in: 600 }
    },
    // the fake objects service's one preview token is user 9's, of group editor
    ExchangePreviewToken: async (req) => {
      if (req.token !== 'preview-token') throw new DomainError('PREVIEW_TOKEN_INVALID', 'invalid preview token: its writer may no longer log in')
      return { access_token: await signToken({ id: 9, groups: ['editor'], backend_auth: true }), expires_in: 30 }
    },
    Revoke: async (req) => {
      if (req.refresh_token !== 'known') throw new DomainError('REFRESH_TOKEN_NOT_FOUND', 'no such refresh token')
      return {}
    },
    GetUser: async (req) => {
      if (req.user_id !== 7) throw new DomainError('USER_NOT_FOUND', 'no such user')
      return { id: 7, username: 'admin', name: 'Admin', email: 'admin@example.org', groups: ['administrator'], created: Date.UTC(2024, 0, 2, 3, 4, 5), card_id: 3, disabled: false }
    },
    // live streams' tickets and session checks (decisions §17): covered by test/live-changes*.test.ts
    IssueStreamTicket: unimplemented('IssueStreamTicket'),
    RedeemStreamTicket: unimplemented('RedeemStreamTicket'),
    CheckSessions: async () => ({ alive: [] }),
    CreateUser: unimplemented('CreateUser'),
    CreateGroup: unimplemented('CreateGroup'),
    ListGroups: unimplemented('ListGroups'),
    ImportAccounts: unimplemented('ImportAccounts'),
    ListUsers: unimplemented('ListUsers'),
    SetPassword: unimplemented('SetPassword'),
    SetDisabled: unimplemented('SetDisabled'),
    DeleteUser: unimplemented('DeleteUser'),
    CreateApiKey: unimplemented('CreateApiKey'),
    ListApiKeys: unimplemented('ListApiKeys'),
    RevokeApiKey: unimplemented('RevokeApiKey'),
    ExportAccounts: unimplemented('ExportAccounts'),
  }
}

export async function startFakeBackends (): Promise<FakeBackends> {
  const pkg = loadContentProtos().content.v1
  const server = createRpcServer(createLogger({ service: 'fake', level: 'silent' }), { identity: testIdentity('fake').verifiers })
  const calls: Call[] = []
  const streams = new Set<grpc.ServerWritableStream<unknown, v1.Change>>()
  let storeId = 'store-a'
  let seq = 0
  const emit = (change: { store_id?: string, affects?: number[], reset?: boolean, clock?: boolean }) => {
    if (change.store_id !== undefined && change.store_id !== storeId) {
      storeId = change.store_id
      seq = 0
    }
    const events = change.affects ? [{ seq: seq + 1, type: 'object.updated', object_id: change.affects[0] ?? 0, object_type: 'document', at: 0, affects: change.affects }] : []
    if (events.length > 0) seq += 1
    const message = { store_id: storeId, reset: change.reset ?? false, clock: change.clock ?? false, events, seq }
    if (held) held.push(message)
    else for (const s of streams) s.write(message)
  }
  let held: v1.Change[] | null = null
  const feed: FeedHooks = { seq: () => seq, wrote: (affects) => emit({ affects }) }
  const store = new ObjectsFake(CANNED)
  const posterFake = new PosterFake(store)
  const fake = {
    objects: store.objectService(), tree: store.treeService(), auth: authImpl(), poster: posterFake.service(),
  }
  fake.objects.WatchChanges = ((call: grpc.ServerWritableStream<v1.WatchChangesRequest__Output, v1.Change>) => {
    streams.add(call)
    // no replay here: a subscriber from elsewhere, or from an earlier position, starts over
    const current = call.request.store_id === storeId && Number(call.request.after_seq) === seq
    call.write({ store_id: storeId, reset: !current, clock: false, events: [], seq })
    call.on('cancelled', () => streams.delete(call))
  }) as unknown as ObjectsImpl['WatchChanges']
  // Indirection so tests can swap a method after the server started.
  const live = <T extends object>(name: keyof typeof fake) => new Proxy({}, {
    get: (_t, method: string) => (...args: unknown[]) => must((fake[name] as Record<string, (...args: unknown[]) => unknown>)[method])(...args),
  }) as T
  const withAll = <T extends object>(impl: T, name: keyof typeof fake): T =>
    recorder(calls, Object.fromEntries(Object.keys(impl).map((m) => [m, (live<Record<string, (...args: unknown[]) => unknown>>(name))[m]])) as T, name, feed)
  server.add<v1.ObjectServiceHandlers>(pkg.ObjectService.service, withAll(fake.objects, 'objects'), 'content.v1.ObjectService')
  server.add<v1.TreeServiceHandlers>(pkg.TreeService.service, withAll(fake.tree, 'tree'), 'content.v1.TreeService')
  server.add<v1.AuthServiceHandlers>(pkg.AuthService.service, withAll(fake.auth, 'auth'), 'content.v1.AuthService')
  server.add<v1.PosterServiceHandlers>(pkg.PosterService.service, withAll(fake.poster, 'poster'), 'content.v1.PosterService')
  const port = await server.listen('127.0.0.1', 0)
  return Object.assign(fake, {
    address: `127.0.0.1:${port}`,
    posterFake,
    calls,
    emitChange: emit,
    get seq () { return seq },
    holdFeed () {
      held = []
      return () => {
        const messages = held ?? []
        held = null
        for (const m of messages) for (const s of streams) s.write(m)
      }
    },
    breakFeed () {
      for (const s of streams) s.emit('error', { code: 14, details: 'feed broken' })
      streams.clear()
    },
    openStreams: () => streams.size,
    close: async () => {
      for (const s of streams) s.end()
      server.server.forceShutdown()
    },
  })
}
