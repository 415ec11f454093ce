import { createLogger, createRpcServer, DomainError, type ServiceImpl } from '@content/platform'
import { loadContentProtos, type v1 } from '@content/protos'
import type * as grpc from '@grpc/grpc-js'
import { CANNED, ObjectsFake } from './fake-objects.js'
import { PosterFake } from './fake-poster.js'
import { signToken } from './tokens.js'

type ObjectsImpl = ServiceImpl<v1.ObjectServiceHandlers>
type TreeImpl = ServiceImpl<v1.TreeServiceHandlers>
type AuthImpl = ServiceImpl<v1.AuthServiceHandlers>
type PosterImpl = ServiceImpl<v1.PosterServiceHandlers>

export interface Call { method: string, request: unknown }

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
  /** pushes a change to every open WatchChanges stream */
  emitChange(change: { store_id: string, generation: number }): void
  /** ends every open WatchChanges stream with an error */
  breakFeed(): void
  openStreams(): number
  close(): Promise<void>
}

const unimplemented = (what: string) => async (): Promise<never> => {
  throw new DomainError('UNIMPLEMENTED', 'NOT_IMPLEMENTED', `${what} is not implemented`)
}

function recorder<T extends object> (calls: Call[], impl: T, service: string): T {
  const out: Record<string, unknown> = {}
  for (const [name, fn] of Object.entries(impl)) {
    out[name] = name === 'WatchChanges' ? fn : (request: unknown, call: unknown) => {
      // a streaming handler gets the call itself: a server stream's request is on it, a client stream's comes later
      const streaming = typeof (request as { getPeer?: unknown }).getPeer === 'function'
      calls.push({ method: `${service}.${name}`, request: streaming ? (request as { request?: unknown }).request ?? null : request })
      return (impl as Record<string, Function>)[name]!(request, call)
    }
  }
  return out as T
}

function authImpl (): AuthImpl {
  const pair = async (id: number, groups: string[]) => ({ access_token: await signToken({ id, groups }), expires_in: 600, refresh_token: `refresh-${id}-new` })
  return {
    Login: async (req) => {
      if (req.username === 'flood') throw new DomainError('RESOURCE_EXHAUSTED', 'TOO_MANY_REQUESTS', 'too many failed logins', { retry_after: 42 })
      if (req.username !== 'admin' || req.password !== 'secret') throw new DomainError('UNAUTHENTICATED', 'LOGIN_FAILED', 'wrong username or password')
      return pair(7, ['administrator'])
    },
    Refresh: async (req) => {
      if (req.refresh_token !== 'good-refresh') throw new DomainError('UNAUTHENTICATED', 'REFRESH_TOKEN_INVALID', 'invalid refresh token')
      return pair(7, ['administrator'])
    },
    Revoke: async (req) => {
      if (req.refresh_token !== 'known') throw new DomainError('NOT_FOUND', 'REFRESH_TOKEN_NOT_FOUND', 'no such refresh token')
      return {}
    },
    GetUser: async (req) => {
      if (req.user_id !== 7) throw new DomainError('NOT_FOUND', 'USER_NOT_FOUND', 'no such user')
      return { id: 7, username: 'admin', name: 'Admin', email: 'admin@example.org', groups: ['administrator'], created: Date.UTC(2024, 0, 2, 3, 4, 5), card_id: 3, disabled: false }
    },
    CreateUser: unimplemented('CreateUser'),
    CreateGroup: unimplemented('CreateGroup'),
    ListGroups: unimplemented('ListGroups'),
    ImportAccounts: unimplemented('ImportAccounts'),
  }
}

export async function startFakeBackends (): Promise<FakeBackends> {
  const pkg = loadContentProtos().content.v1
  const server = createRpcServer(createLogger({ service: 'fake', level: 'silent' }))
  const calls: Call[] = []
  const streams = new Set<grpc.ServerWritableStream<unknown, v1.Change>>()
  let last = { store_id: 'store-a', generation: 1 }
  const store = new ObjectsFake(CANNED)
  const posterFake = new PosterFake(store)
  const fake = {
    objects: store.objectService(), tree: store.treeService(), auth: authImpl(), poster: posterFake.service(),
  }
  fake.objects.WatchChanges = ((call: grpc.ServerWritableStream<unknown, v1.Change>) => {
    streams.add(call)
    call.write(last)
    call.on('cancelled', () => streams.delete(call))
  }) as unknown as ObjectsImpl['WatchChanges']
  // Indirection so tests can swap a method after the server started.
  const live = <T extends object>(name: keyof typeof fake) => new Proxy({}, {
    get: (_t, method: string) => (...args: unknown[]) => (fake[name] as Record<string, Function>)[method]!(...args),
  }) as T
  const withAll = <T extends object>(impl: T, name: keyof typeof fake): T =>
    recorder(calls, Object.fromEntries(Object.keys(impl).map((m) => [m, (live<Record<string, Function>>(name))[m]])) as T, name)
  server.add<v1.ObjectServiceHandlers>(pkg.ObjectService.service, withAll(fake.objects, 'objects'), 'content.v1.ObjectService')
  server.add<v1.TreeServiceHandlers>(pkg.TreeService.service, withAll(fake.tree, 'tree'), 'content.v1.TreeService')
  server.add<v1.AuthServiceHandlers>(pkg.AuthService.service, withAll(fake.auth, 'auth'), 'content.v1.AuthService')
  server.add<v1.PosterServiceHandlers>(pkg.PosterService.service, withAll(fake.poster, 'poster'), 'content.v1.PosterService')
  const port = await server.listen('127.0.0.1', 0)
  return Object.assign(fake, {
    address: `127.0.0.1:${port}`,
    posterFake,
    calls,
    emitChange (change: { store_id: string, generation: number }) {
      last = change
      for (const s of streams) s.write(change)
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
