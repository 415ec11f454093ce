import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { ApiError, errorOf } from './errors.js'
import type { QueryInput } from './query.js'
import type { Transport } from './transport.js'
import type { DataOf, ObjectType } from './types.js'

/** The change types of decisions §13 and §16 a stream carries. */
export type ChangeType =
  | 'object.created' | 'object.updated' | 'object.trashed' | 'object.restored' | 'object.deleted' | 'object.published' | 'object.unpublished'
  | 'relation.created' | 'relation.updated' | 'relation.deleted' | 'child.added' | 'child.updated' | 'child.removed'
  | 'permissions.changed' | 'file.changed'

/** One committed change: ids and types only, never an object's content (decisions §17). */
export interface ChangeEvent {
  type: ChangeType
  /** the stream position: resuming after it misses nothing and repeats nothing */
  id: string | undefined
  timestamp: string
  data: {
    seq: number, object_id: number, object_type: ObjectType,
    /** relation events: the relation's name and its other end */
    relation?: string, related_id?: number, related_type?: ObjectType,
    /** child events: the parent */
    parent_id?: number, parent_type?: ObjectType,
  }
}
/**
 * What `onEvent` receives: a change; `reset` when the server could not resume from the last position
 * (re-read what you show); `shutdown` when the server ends the stream (the client reconnects); `revoked`
 * when the login ended (a logout, a password change, a disabled user): the subscription ends with it.
 */
export type LiveEvent = ChangeEvent | { type: 'reset' } | { type: 'shutdown' } | { type: 'revoked' }

export interface ChangesQuery {
  filter?: { object_type?: ObjectType | readonly ObjectType[], parent?: number | string, ancestor?: number | string }
  events?: ChangeType | readonly ChangeType[]
  /** `draft`: writers also see changes of the drafts they may write */
  status?: 'draft'
}

export interface SubscribeOptions {
  /** resume after this position (else: from now on) */
  lastEventId?: string
  /** every error: a refused stream (then the subscription ends unless the status is worth retrying), a cut one, a malformed event */
  onError?: (error: unknown) => void
  /**
   * Each time a connection is open (the server answered the stream): from then on no change is missed.
   * A change made before the first one opens may come before the stream starts; wait for this to see it.
   */
  onOpen?: () => void
  /** wait before reconnecting, until the server's `retry:` says otherwise (default 1000 ms) */
  retryMs?: number
  /**
   * true: each connection opens with a fresh single-use ticket (`POST /changes/tickets`) in its URL instead
   * of the Authorization header, so the access token never rides on a long-lived connection; anonymous
   * (no login) connects without either.
   */
  ticket?: boolean
}

/** A single-use ticket for one stream, valid `expires_in` seconds (decisions §17). */
export type StreamTicket = DataOf<'postChangesTickets'>

/** Statuses after which reconnecting can succeed: overload, limits, a server going away. */
const worthRetrying = (status: number) => status === 429 || status >= 500

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  if (signal.aborted) { resolve(); return }
  const timer = setTimeout(done, ms)
  function done () { clearTimeout(timer); signal.removeEventListener('abort', done); resolve() }
  signal.addEventListener('abort', done)
})

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** A parsed SSE message as a LiveEvent; an ApiError when its data is not the change body. Pure. */
export function liveEventOf (message: EventSourceMessage): LiveEvent | ApiError {
  const type = message.event ?? 'message'
  if (type === 'reset' || type === 'shutdown' || type === 'revoked') return { type }
  let body: unknown
  try { body = JSON.parse(message.data) } catch { body = undefined }
  if (!isRecord(body) || !isRecord(body.data) || typeof body.data.object_id !== 'number' || typeof body.data.seq !== 'number') {
    return new ApiError({ status: 200, code: 'UNEXPECTED_RESPONSE', message: `a "${type}" event whose data is not a change`, details: message.data.slice(0, 500) })
  }
  return { type: type as ChangeType, id: message.id, timestamp: String(body.timestamp ?? ''), data: body.data as ChangeEvent['data'] }
}

const queryOf = (query: ChangesQuery): QueryInput => ({
  ...(query.filter ? { filter: query.filter } : {}),
  ...(query.events !== undefined ? { events: typeof query.events === 'string' ? query.events : [...query.events] } : {}),
  ...(query.status ? { status: query.status } : {}),
})

export interface ChangesApi {
  /** POST /changes/tickets: a single-use ticket (60 s) that opens one stream as the logged-in user. */
  ticket (): Promise<StreamTicket>
  /**
   * The URL of a stream for a browser's `EventSource`, which cannot send headers: with a fresh ticket
   * when logged in, resuming after `lastEventId` when given. One URL opens one stream (the ticket is used
   * up): an `EventSource` that reconnects by itself needs a new one, so prefer `subscribe`.
   */
  eventSourceUrl (query?: ChangesQuery, options?: { lastEventId?: string }): Promise<string>
  /**
   * GET /changes as Server-Sent Events, with the client's token. Reconnects after a cut with
   * `Last-Event-ID`, so nothing is missed or repeated; answers `reset`, `shutdown` and `revoked` (the
   * last one ends the subscription) as events. Returns the unsubscribe function.
   */
  subscribe (query: ChangesQuery, onEvent: (event: LiveEvent) => void, options?: SubscribeOptions): () => void
}

export function createChanges (transport: Transport): ChangesApi {
  const ticket = async (): Promise<StreamTicket> =>
    (await transport.send<{ data: StreamTicket }>({ method: 'POST', path: '/changes/tickets' })).data
  /** A ticket when logged in; none for an anonymous stream. */
  const ticketIfLoggedIn = async (): Promise<string | undefined> => (await transport.storage.load()) === null ? undefined : (await ticket()).ticket

  return {
    ticket,
    async eventSourceUrl (query = {}, options = {}) {
      const t = await ticketIfLoggedIn()
      return transport.url('/changes', { ...queryOf(query), ...(options.lastEventId !== undefined ? { after: options.lastEventId } : {}), ...(t !== undefined ? { ticket: t } : {}) })
    },
    subscribe (query, onEvent, options = {}) {
      const controller = new AbortController()
      const { signal } = controller
      let lastId = options.lastEventId
      let retryMs = options.retryMs ?? 1000
      // the server ended the login's streams: reconnecting would be refused, or open as someone else (anonymous after a logout)
      let revoked = false
      // the caller's handler throwing must not end the loop as an unhandled rejection
      const report = (error: unknown) => { try { if (!signal.aborted) options.onError?.(error) } catch {} }

      const parser = createParser({
        onEvent (message) {
          if (message.id !== undefined) lastId = message.id
          const event = liveEventOf(message)
          if (event instanceof ApiError) { report(event); return }
          if (event.type === 'revoked') revoked = true
          try { onEvent(event) } catch (err) { report(err) }
        },
        onRetry (ms) { retryMs = ms },
      })

      /** One connection; resolves when it ends, true when reconnecting is worth it. */
      async function connect (): Promise<boolean> {
        // only headers the API's CORS preflight allows, so that a page of another origin can open the stream
        const headers: Record<string, string> = { accept: 'text/event-stream' }
        if (lastId !== undefined) headers['last-event-id'] = lastId
        const t = options.ticket === true ? await ticketIfLoggedIn() : undefined
        const res = await transport.open(t === undefined
          ? { method: 'GET', path: '/changes', query: queryOf(query), headers, signal }
          : { method: 'GET', path: '/changes', query: { ...queryOf(query), ticket: t }, headers, signal, token: false })
        if (!res.ok) {
          const error = errorOf(res.status, await res.text(), transport.url('/changes'))
          report(error)
          const after = Number(res.headers.get('retry-after'))
          if (Number.isFinite(after) && after > 0) retryMs = Math.max(retryMs, after * 1000)
          return worthRetrying(res.status)
        }
        // a stream opened from now says where it starts: cut before its first event, it resumes from there
        lastId ??= res.headers.get('x-last-event-id') ?? undefined
        try { options.onOpen?.() } catch (err) { report(err) }
        if (!res.body) return true
        parser.reset()
        const reader = res.body.getReader()
        const decoder = new TextDecoder()
        for (;;) {
          const { done, value } = await reader.read()
          if (done) return !revoked
          parser.feed(decoder.decode(value, { stream: true }))
        }
      }

      void (async () => {
        while (!signal.aborted) {
          let again = true
          try {
            again = await connect()
          } catch (err) {
            // a refused token (TOKEN_INVALID, a used ticket) does not get better by asking again
            if (err instanceof ApiError) { report(err); again = worthRetrying(err.status) } else report(err)
          }
          if (!again) return
          await sleep(retryMs, signal)
        }
      })()
      return () => controller.abort()
    },
  }
}
