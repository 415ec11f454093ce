import * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import { service as healthService } from 'grpc-health-check'
import { rpcRecorder } from '../metrics/rpc.js'
import { SERVICE_TOKEN_HEADER, USER_TOKEN_HEADER } from '../identity/call-identity.js'
import { serviceTokenSource, type ServiceIdentity } from '../identity/service-token.js'
import { REQUEST_ID_HEADER } from '../request-id.js'
import { MESSAGE_SIZE_OPTIONS } from './message-size.js'

export interface CallOptions {
  /** Overrides the client's default deadline. */
  timeoutMs?: number
  /** Forwarded as `x-request-id` so backend log lines can be joined with the gateway's; checked where it was received (acceptedRequestId). */
  requestId?: string
  /** Receives the response headers the server sent (text values; before the promise settles). */
  onHeaders?: (headers: Record<string, string>) => void
  /** The access token of the user the call acts for; none = anonymous. */
  userToken?: string | undefined
  /** cancels the call when aborted (a coalesced batch whose every request went away) */
  signal?: AbortSignal
  /** the HTTP client went away: a coalesced read leaves its batch; a unary call runs on, as it always has */
  clientGone?: ClientGone
}

/**
 * Whether the HTTP client of a call went away: what a coalesced read needs of an AbortSignal, made for
 * every request without one (an AbortController and its listeners cost more than a read's own work here).
 */
export interface ClientGone {
  readonly gone: boolean
  /** calls `listener` once, when the client goes; answers what stops listening */
  onGone (listener: () => void): () => void
}

/** The metadata a call's options put on it: the request id and the user's access token. */
export function callMetadata (options: CallOptions): grpc.Metadata {
  const metadata = new grpc.Metadata()
  if (options.requestId) metadata.set(REQUEST_ID_HEADER, options.requestId)
  if (options.userToken !== undefined) metadata.set(USER_TOKEN_HEADER, options.userToken)
  return metadata
}

type MethodDef = grpc.MethodDefinition<unknown, unknown>
/** A unary method of a grpc-js client, as the generated classes define it. */
type UnaryMethod = (request: unknown, metadata: grpc.Metadata, options: grpc.CallOptions,
  callback: (err: grpc.ServiceError | null, response: unknown) => void) => grpc.ClientUnaryCall

/** Promise form of every unary method of a generated `XDefinition`; streams are reached through `raw`. */
export type PromiseClient<Definition, Raw> = {
  [K in keyof Definition as Definition[K] extends { responseStream: true } ? never : K]:
  Definition[K] extends MethodDefinition<infer Req, infer _Res, infer _ReqOut, infer ResOut>
    ? (request: Req, options?: CallOptions) => Promise<ResOut>
    : never
} & { readonly raw: Raw, close(): void }

export interface ClientSettings {
  /** Default deadline of every call. */
  timeoutMs: number
  /** the calling service and SERVICE_SECRET: every call, streams included, carries its service token */
  identity: ServiceIdentity
  /** the user every unary call acts for unless its options name another (the admin tool's administrator) */
  userToken?: string
  /** `stream`: a channel of its own for long-lived streams and long calls, without keepalive pings (STREAM_CHANNEL_OPTIONS) */
  channel?: 'calls' | 'stream'
}

/** Adds the service token to every call of a client; the call starts once the token is at hand. */
function serviceTokenInterceptor (identity: ServiceIdentity): grpc.Interceptor {
  const token = serviceTokenSource(identity)
  return (options, nextCall) => new grpc.InterceptingCall(nextCall(options), {
    start (metadata, listener, next) {
      token().then((value) => {
        metadata.set(SERVICE_TOKEN_HEADER, value)
        next(metadata, listener)
      }, (err: unknown) => {
        listener.onReceiveStatus?.({ code: grpc.status.INTERNAL, details: `no service token: ${String(err)}`, metadata: new grpc.Metadata() })
      })
    },
  })
}

/**
 * How much a backend may send on a connection, and on each call, before this side reads it. HTTP/2's
 * default, 64 KiB, made a coalesced batch's answer (about a megabyte for fifty pages of twenty) wait for
 * a WINDOW_UPDATE from this side's event loop every 64 KiB; from 1 MiB on it arrives without waiting
 * (loadtest/README.md, "The flow-control window"). It also bounds what a connection buffers unread.
 */
export const FLOW_CONTROL_WINDOW = 4 * 1024 * 1024

export const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.keepalive_permit_without_calls': 1,
  // No retry policy is configured, so a failed call is never retried (a create must not run twice); only
  // grpc's transparent retry remains, for a call the server refused unread (REFUSED_STREAM when it sent
  // GOAWAY at its maximum connection age, or a connection that failed before the call left).
  'grpc.enable_retries': 1,
  // grpc's defaults (1 s growing to 120 s) keep answering UNAVAILABLE for seconds after a restarted
  // backend is back; reconnecting is cheap, so retry the connection soon and at most every second
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 1_000,
  // channelz (call counters and timestamps at three levels of every call) is never queried here
  'grpc.enable_channelz': 0,
  // calls spread over every address the name resolves to (a headless Service's pods, `dns:///host:port`)
  // instead of pick_first's single connection
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  // grpc-js advertises it as each stream's initial window and raises the connection's to it
  'grpc-node.flow_control_window': FLOW_CONTROL_WINDOW,
  // answers past grpc's 4 MiB default (a page with include): message-size.ts
  ...MESSAGE_SIZE_OPTIONS,
}

/**
 * The channel of long-lived streams (the change feed) and long calls (the admin tool's): no keepalive
 * pings. grpc-js 1.14 fails every call still open on a connection the server has sent GOAWAY (at its
 * maximum connection age, every ~60 s) at that connection's next keepalive ping, as `UNAVAILABLE:
 * Connection dropped` (grpc/grpc-node#3068). A request's unary call is over long before that ping; a
 * stream is not, so a stream's channel sends none and the stream carries its own heartbeat instead (a
 * silent one is given up by its reader). A fixtures import is one call during which the objects service's
 * thread is in one transaction and answers no ping: past the ping's 10 s timeout the client drops the
 * connection and fails the call the same way, so the admin tool's calls are bounded by their deadlines
 * instead.
 */
export const STREAM_CHANNEL_OPTIONS: grpc.ChannelOptions = Object.fromEntries(
  Object.entries(CHANNEL_OPTIONS).filter(([key]) => !key.startsWith('grpc.keepalive_')),
)

type ClientCtor = grpc.ServiceClientConstructor

/**
 * One client per backend per process. Every call carries a deadline; a call that misses it fails
 * with DEADLINE_EXCEEDED instead of hanging.
 */
export function createClient<Definition, Raw = grpc.Client> (
  Ctor: unknown, address: string, settings: ClientSettings,
): PromiseClient<Definition, Raw> {
  const ctor = Ctor as ClientCtor
  const options = settings.channel === 'stream' ? STREAM_CHANNEL_OPTIONS : CHANNEL_OPTIONS
  const raw = new ctor(address, grpc.credentials.createInsecure(), { ...options, interceptors: [serviceTokenInterceptor(settings.identity)] })
  const api: Record<string, unknown> = { raw, close: () => raw.close() }
  for (const [name, def] of Object.entries(ctor.service) as [string, MethodDef][]) {
    if (def.requestStream || def.responseStream) continue
    const unary = (raw as unknown as Record<string, UnaryMethod | undefined>)[name]
    if (unary === undefined) throw new Error(`the generated client has no method ${name}`)
    const method = unary.bind(raw)
    const record = rpcRecorder('client', def.path)
    api[name] = (request: unknown, options: CallOptions = {}) => new Promise((resolve, reject) => {
      const started = performance.now()
      const metadata = callMetadata(options.userToken === undefined && settings.userToken !== undefined ? { ...options, userToken: settings.userToken } : options)
      const deadline = Date.now() + (options.timeoutMs ?? settings.timeoutMs)
      const call = method(request, metadata, { deadline }, (err: grpc.ServiceError | null, response: unknown) => {
        record(err ? err.code : grpc.status.OK, started)
        if (err) reject(err)
        else resolve(response)
      }) as grpc.ClientUnaryCall
      const signal = options.signal
      if (signal) {
        if (signal.aborted) call.cancel()
        else signal.addEventListener('abort', () => call.cancel(), { once: true })
      }
      const onHeaders = options.onHeaders
      if (onHeaders) {
        call.on('metadata', (headers: grpc.Metadata) => {
          const out: Record<string, string> = {}
          for (const [key, value] of Object.entries(headers.getMap())) if (typeof value === 'string') out[key] = value
          onHeaders(out)
        })
      }
    })
  }
  return api as PromiseClient<Definition, Raw>
}

/** Asks the standard health service of `address`; resolves to true when it answers SERVING. */
export function checkHealth (address: string, timeoutMs: number, service = ''): Promise<boolean> {
  return new Promise((resolve) => {
    const client = new HealthClient(address, grpc.credentials.createInsecure())
    client.Check({ service }, { deadline: Date.now() + timeoutMs }, (err: unknown, response?: { status?: string | number }) => {
      client.close()
      resolve(!err && (response?.status === 'SERVING' || response?.status === 1))
    })
  }) as Promise<boolean>
}

const HealthClient = grpc.makeGenericClientConstructor(
  healthService as unknown as grpc.ServiceDefinition, 'Health',
) as unknown as new (address: string, credentials: grpc.ChannelCredentials) => grpc.Client & {
  Check(request: { service: string }, options: grpc.CallOptions, callback: (err: unknown, response?: { status?: string | number }) => void): void
}
