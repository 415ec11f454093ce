import type * as grpc from '@grpc/grpc-js'
import type { v1 } from '@content/protos'
import type { FeedMessage } from '../core/change-feed.js'
import type { ObjectsServerDeps } from './deps.js'

/** Bounds on the heartbeat a subscriber may ask for (WatchChangesRequest.heartbeat_ms). */
export const HEARTBEAT_MIN_MS = 100
export const HEARTBEAT_MAX_MS = 60_000

/**
 * Replays the events after the subscriber's position (or says `reset` when they are not retained), then
 * follows new ones, until the client goes away. The first message always comes at once: it tells the
 * subscriber the feed is live. Events published while the replay is read wait behind it, in order.
 * Asked for a heartbeat, the stream also carries a message without events at its own position whenever
 * nothing else was sent for that long, so a subscriber can tell a stream that went silent (a stalled
 * or unreachable service) from a store nobody writes to. A message is written as the bytes `encode`
 * answers, the same for every stream (feed-encoding.ts).
 */
export function watchChangesHandler (deps: Pick<ObjectsServerDeps, 'feed' | 'log'>, encode: (message: FeedMessage) => Buffer): grpc.handleServerStreamingCall<v1.WatchChangesRequest__Output, v1.Change> {
  return (call) => {
    const { feed } = deps
    let waiting: FeedMessage[] | null = []
    /** the position of the last message written on this stream: a heartbeat says no more */
    let sentSeq = -1
    let sentAt = Date.now()
    const send = (message: FeedMessage) => {
      sentSeq = message.seq
      sentAt = Date.now()
      // the method's serializer passes encoded bytes through (feed-encoding.ts)
      call.write(encode(message) as unknown as v1.Change)
    }
    const unsubscribe = feed.subscribe((message) => {
      if (waiting) waiting.push(message)
      else send(message)
    }, () => { call.end() })
    const asked = Number(call.request.heartbeat_ms)
    const every = asked > 0 ? Math.min(HEARTBEAT_MAX_MS, Math.max(HEARTBEAT_MIN_MS, asked)) : 0
    const heartbeat = every > 0
      ? setInterval(() => {
        // a heartbeat never overtakes the replay, and is not needed right after a message
        if (waiting || sentSeq < 0 || Date.now() - sentAt < every / 2) return
        send({ store_id: feed.storeId, reset: false, clock: false, events: [], seq: sentSeq })
      }, every / 2)
      : undefined
    heartbeat?.unref()
    const stop = () => {
      unsubscribe()
      if (heartbeat) clearInterval(heartbeat)
    }
    call.on('cancelled', stop)
    call.on('close', stop)
    call.on('error', stop)
    call.on('finish', stop)
    const position = feed.position
    feed.resume(call.request.store_id, Number(call.request.after_seq)).then((replay) => {
      const first: FeedMessage[] = replay ?? [{ store_id: feed.storeId, reset: true, clock: false, events: [], seq: position }]
      if (first.length === 0) first.push({ store_id: feed.storeId, reset: false, clock: false, events: [], seq: position })
      for (const message of [...first, ...(waiting ?? [])]) send(message)
      waiting = null
    }, (err: unknown) => {
      deps.log.error({ err }, 'change feed replay failed')
      stop()
      call.destroy(err instanceof Error ? err : new Error(String(err)))
    })
  }
}
