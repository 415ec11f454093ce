import * as grpc from '@grpc/grpc-js'
import { HealthImplementation } from 'grpc-health-check'
import type { Logger } from 'pino'
import { DomainError, toServiceError } from '../errors.js'
import { identify, rememberIdentity, requireAdministrator, type IdentityVerifiers } from '../identity/call-identity.js'
import { recordedStream, rpcRecorder } from '../metrics/rpc.js'
import { MESSAGE_SIZE_OPTIONS } from './message-size.js'

/** A unary handler as services write it: request in, response out, errors thrown. */
export type UnaryImpl<Req, Res> = (request: Req, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res>

type Impl<H> = H extends grpc.handleUnaryCall<infer Req, infer Res> ? UnaryImpl<Req, Res> : H

/** Turns the generated `XHandlers` into what a service implements: async unary functions; streams stay raw. */
export type ServiceImpl<Handlers> = { [K in keyof Handlers]: Impl<Handlers[K]> }

export interface ServiceOptions {
  /** methods only an administrator may call (the admin tool's) */
  administration?: readonly string[]
}

export interface RpcServer {
  readonly server: grpc.Server
  add<H>(definition: grpc.ServiceDefinition, impl: ServiceImpl<H>, name: string, options?: ServiceOptions): void
  listen(host: string, port: number): Promise<number>
  /**
   * The health service's answer while running: NOT_SERVING while a dependency the calls need (the
   * database) cannot be reached, SERVING again once it can. A server shutting down stays NOT_SERVING.
   */
  setServing(serving: boolean): void
  /** Health → NOT_SERVING, finish in-flight calls, close; forced after `timeoutMs`. */
  shutdown(timeoutMs: number): Promise<void>
}

/** Response headers sent ahead of a unary answer; the client reads them with CallOptions.onHeaders. */
export function sendHeaders (call: { sendMetadata(metadata: grpc.Metadata): void }, headers: Record<string, string>): void {
  const metadata = new grpc.Metadata()
  for (const [key, value] of Object.entries(headers)) metadata.set(key, value)
  call.sendMetadata(metadata)
}

/** Checks a call's credentials before its handler runs; see identify(). */
export type CallGate = (call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerReadableStream<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown> | grpc.ServerDuplexStream<unknown, unknown>) => Promise<void>

/**
 * The only place that touches gRPC callbacks: each unary call answers exactly once, a DomainError
 * becomes its status plus the reason in trailing metadata, anything else becomes INTERNAL and is logged.
 * A request's `caller` is always the one the gate verified, whatever the sender put there.
 */
export function wrapUnary<Req, Res> (method: string, impl: UnaryImpl<Req, Res>, log: Logger, gate: CallGate): grpc.handleUnaryCall<Req, Res> {
  const record = rpcRecorder('server', method)
  return (call, callback) => {
    const started = performance.now()
    gate(call as grpc.ServerUnaryCall<unknown, unknown>).then(() => impl(call.request, call)).then(
      (response) => {
        if (log.isLevelEnabled('debug')) log.debug({ rpc: method, code: 'OK', ms: round(performance.now() - started) }, 'rpc')
        record(grpc.status.OK, started)
        callback(null, response)
      },
      (err: unknown) => {
        const ms = round(performance.now() - started)
        if (err instanceof DomainError) {
          log.debug({ rpc: method, code: err.code, reason: err.reason, ms }, 'rpc')
          record(grpc.status[err.code], started)
          callback(toServiceError(err))
        } else {
          log.error({ rpc: method, code: 'INTERNAL', ms, err }, 'rpc failed')
          record(grpc.status.INTERNAL, started)
          callback({ code: grpc.status.INTERNAL, details: 'internal error' })
        }
      },
    )
  }
}

/** A streaming handler runs once its call's credentials are checked; a refused call ends with the error. */
function gatedStream (handler: grpc.UntypedHandleCall, gate: CallGate, method: string, log: Logger): grpc.UntypedHandleCall {
  return ((call: Parameters<CallGate>[0], callback?: grpc.sendUnaryData<unknown>) => {
    gate(call).then(
      () => { (handler as (c: unknown, cb?: unknown) => void)(call, callback) },
      (err: unknown) => {
        const refusal = err instanceof DomainError ? toServiceError(err) : { code: grpc.status.INTERNAL, details: 'internal error' }
        if (!(err instanceof DomainError)) log.error({ rpc: method, err }, 'rpc failed')
        if (callback) callback(refusal)
        else (call as grpc.ServerWritableStream<unknown, unknown>).emit('error', refusal)
      },
    )
  }) as grpc.UntypedHandleCall
}

const round = (ms: number) => Math.round(ms * 100) / 100

function callGate (verifiers: IdentityVerifiers, administration: boolean): CallGate {
  return async (call) => {
    const identity = await identify(call.metadata, verifiers)
    if (administration) requireAdministrator(identity)
    rememberIdentity(call, identity)
    // a request with a caller field (proto-loader fills every field) gets the verified one, whatever was sent
    const request = (call as { request?: unknown }).request
    if (typeof request === 'object' && request !== null && 'caller' in request) (request as { caller: unknown }).caller = identity.caller
  }
}

export interface RpcServerOptions {
  /** how calls' service and user tokens are checked: every call but the health check's needs a service token */
  identity: IdentityVerifiers
  /** GRPC_MAX_CONNECTION_AGE_MS: clients holding an older connection get GOAWAY and re-resolve */
  maxConnectionAgeMs?: number
  /** raw grpc-js server options */
  grpc?: grpc.ServerOptions
}

export function createRpcServer (log: Logger, options: RpcServerOptions): RpcServer {
  const server = new grpc.Server({
    'grpc.keepalive_permit_without_calls': 1,
    // channelz (per-call counters and timestamps) is never queried here
    'grpc.enable_channelz': 0,
    // With one long-lived HTTP/2 connection per client, a replica added later would get no calls:
    // past this age the server sends GOAWAY and the client's round_robin reconnects to every address
    // it resolves. No grace limit, so streams in flight (uploads, the change feed) run to their end.
    'grpc.max_connection_age_ms': options.maxConnectionAgeMs ?? 60_000,
    // what the clients' channels take, both ways: message-size.ts
    ...MESSAGE_SIZE_OPTIONS,
    ...options.grpc,
  })
  const health = new HealthImplementation({ '': 'SERVING' })
  health.addToServer(server)
  const names: string[] = []
  let serving = true
  let stopping = false
  const report = () => {
    const state = serving && !stopping ? 'SERVING' : 'NOT_SERVING'
    health.setStatus('', state)
    for (const name of names) health.setStatus(name, state)
  }

  return {
    server,
    add (definition, impl, name, serviceOptions = {}) {
      const wrapped: grpc.UntypedServiceImplementation = {}
      const administration = new Set(serviceOptions.administration ?? [])
      for (const [method, def] of Object.entries(definition)) {
        const fn = (impl as Record<string, unknown>)[method]
        if (typeof fn !== 'function') throw new Error(`${name}.${method} has no implementation`)
        const gate = callGate(options.identity, administration.has(method))
        const path = `${name}/${method}`
        wrapped[method] = def.requestStream || def.responseStream
          ? recordedStream(def.requestStream, def.responseStream, gatedStream(fn as grpc.UntypedHandleCall, gate, path, log), rpcRecorder('server', path))
          : wrapUnary(path, fn as UnaryImpl<unknown, unknown>, log, gate)
      }
      for (const method of administration) if (!(method in definition)) throw new Error(`${name}.${method} is not a method`)
      server.addService(definition, wrapped)
      names.push(name)
      health.setStatus(name, serving && !stopping ? 'SERVING' : 'NOT_SERVING')
    },
    listen (host, port) {
      return new Promise((resolve, reject) => {
        server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) => {
          if (err) reject(err)
          else resolve(bound)
        })
      })
    },
    setServing (now) {
      serving = now
      report()
    },
    shutdown (timeoutMs) {
      stopping = true
      report()
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          log.warn({ timeoutMs }, 'in-flight calls did not finish in time; forcing shutdown')
          server.forceShutdown()
          resolve()
        }, timeoutMs)
        server.tryShutdown(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    },
  }
}
