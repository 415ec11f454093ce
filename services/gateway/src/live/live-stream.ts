import type { ChangeType } from '@content/api-schema'
import type { v1 } from '@content/protos'
import { accessAfter, accessBefore, verdict, type ReadAccess, type ReadRules, type Viewer } from './live-access.js'
import { eventFrameBytes, PING_FRAME, resetFrame, retryFrame, unpublishedFrameBytes, type Position } from './live-frames.js'
import { liveMetrics, type LiveDropReason } from './live-metrics.js'
import { LiveOutput } from './live-output.js'
import type { LiveParams } from './live-params.js'

export type ChangeEvent = v1.ChangeEvent__Output
/** An event of the gateway's feed with its object's access at the feed's previous event about it. */
export interface FeedEvent { event: ChangeEvent, before: ReadAccess | null | undefined }

/**
 * What the streams of one audience (the same caller's rights and the same filters: `audienceOf`) send of
 * one message of the feed, or write at one flush, made by the first of them and reused by the others: a
 * thousand streams of a few audiences decide each event a few times, not a thousand, and share the bytes
 * they write. Made afresh for each message and each flush (LiveHub).
 */
export type Shared<T> = Map<string, T>

/** A flush's bytes as made for one list of the message frames it writes (compared by identity). */
interface SharedWrite { parts: readonly (readonly Buffer[])[], bytes: Buffer }

/** The key of the streams that send the same frames of the same events: the viewer's rights and the stream's filters. */
export function audienceOf (viewer: Viewer, params: LiveParams): string {
  const list = (values: Iterable<string>) => [...values].sort().join(',')
  return JSON.stringify([viewer.userId, list(viewer.groups), viewer.mayWrite, viewer.drafts, list(params.events), list(params.objectTypes), params.parent, params.ancestor])
}

export interface StreamSettings {
  rules: ReadRules
  now: () => number
  /** a comment line this often (decisions §17: 15 s) */
  pingMs: number
  /** a client whose unread bytes pass this is dropped */
  maxBufferBytes: number
  /** the EventSource reconnection delay sent first (ms) */
  retryMs: number
  /**
   * LIVE_FLUSH_MS: live events wait to go out with the next ones, up to this long after their commit, and a
   * stream is written at most once this long (0: at once). A socket write per stream and feed message was
   * most of what a thousand streams cost; the hub flushes every stream at once (LiveFlushSchedule).
   */
  flushMs: number
}

/** Whether the event passes the stream's own filters (type, object type, parent, ancestor), its type as it would be sent. */
function wanted (params: LiveParams, event: ChangeEvent, type: ChangeType): boolean {
  if (params.events.size > 0 && !params.events.has(type)) return false
  if (params.objectTypes.size > 0 && !params.objectTypes.has(event.object_type)) return false
  if (params.parent !== null && !(event.access?.parents ?? []).includes(params.parent)) return false
  if (params.ancestor !== null && !(event.access?.ancestors ?? []).includes(params.ancestor)) return false
  return true
}

/**
 * One client's stream: the events of the feed it may read and asked for, in commit order, each once.
 * While it catches up (a resume), live events wait in `pending`; an event at or before the last one
 * handled is never handled again, so the replay and the live feed may overlap.
 */
export class LiveStream {
  /** what the reply sends (piped into the response, it writes to the socket itself) */
  readonly out = new LiveOutput()
  /** the caller as counted by the per-caller limit */
  readonly key: string
  /** the session (access token id) whose revocation ends the stream; '' for none */
  readonly session: string
  readonly userId: number
  /** audienceOf its viewer and filters */
  readonly audience: string
  private lastSeq = -1
  private storeId = ''
  private pending: { storeId: string, event: ChangeEvent, before: ReadAccess | null | undefined }[] | null = []
  /** frames of live events waiting for the hub's next flush (StreamSettings.flushMs), a list per message of the feed */
  private queued: (readonly Buffer[])[] = []
  /** during a catch-up: each object's access at the last event the catch-up handled */
  private seen = new Map<number, ReadAccess | null | undefined>()
  private readonly ping: NodeJS.Timeout
  private closed = false

  constructor (
    private readonly viewer: Viewer, private readonly params: LiveParams, private readonly settings: StreamSettings,
    identity: { key: string, session: string, userId: number }, private readonly onEnd: (stream: LiveStream) => void,
  ) {
    this.key = identity.key
    this.session = identity.session
    this.userId = identity.userId
    this.audience = audienceOf(viewer, params)
    this.ping = setInterval(() => this.write(PING_FRAME), settings.pingMs)
    this.ping.unref()
    this.out.on('close', () => this.end())
    this.write(retryFrame(settings.retryMs))
  }

  get isClosed (): boolean { return this.closed }

  /** Starts at `at`, nothing to catch up. */
  startAt (at: Position): void {
    this.storeId = at.storeId
    this.lastSeq = Math.max(this.lastSeq, at.seq)
  }

  /** The position could not be resumed: says so, then goes on from `at`. */
  reset (at: Position): void {
    this.storeId = at.storeId
    this.lastSeq = at.seq
    this.seen.clear()
    this.write(resetFrame(at))
  }

  /**
   * An event of the catch-up, in order; `before` when known (the hub's memory): its object's access at the
   * feed's previous event about it, else as the store recorded it or the catch-up's previous event about it left it.
   */
  replayed (storeId: string, event: ChangeEvent, before?: ReadAccess | null): void {
    const frame = this.handle(storeId, event, before !== undefined ? before : accessBefore(event, this.seen.get(event.object_id)))
    if (frame !== null) this.deliver([frame])
    this.seen.set(event.object_id, accessAfter(event))
  }

  /** The catch-up is done: the live events that waited go out (those it did not already cover), then every new one at once. */
  caughtUp (): void {
    const waiting = this.pending ?? []
    this.pending = null
    this.seen.clear()
    this.deliver(waiting.map(({ storeId, event, before }) => this.handle(storeId, event, before)).filter((f) => f !== null))
  }

  /**
   * The events of one message of the gateway's feed, in order; `before`: each one's object's access at the
   * feed's previous event about it. What goes out of them is written in one go: under load a message holds
   * many events, and a thousand streams then cost a thousand writes, not a thousand per event; with a
   * flush window, the events of every message until the hub's next flush.
   */
  live (storeId: string, events: readonly FeedEvent[], shared?: Shared<readonly Buffer[]>): void {
    if (this.pending) {
      for (const { event, before } of events) this.pending.push({ storeId, event, before })
      return
    }
    const first = events[0]
    const last = events.at(-1)
    let frames: readonly Buffer[]
    if (shared !== undefined && first !== undefined && last !== undefined && !this.closed && storeId === this.storeId && first.event.seq > this.lastSeq) {
      // every event is new to this stream (the hub passes `shared` only for a message in strict order): what it sends is its audience's
      const known = shared.get(this.audience)
      frames = known ?? this.framesOf(storeId, events)
      if (known === undefined) shared.set(this.audience, frames)
      this.lastSeq = last.event.seq
    } else {
      frames = events.map(({ event, before }) => this.handle(storeId, event, before)).filter((f) => f !== null)
    }
    if (frames.length === 0) return
    if (this.settings.flushMs > 0) this.queued.push(frames)
    else this.send([frames])
  }

  /** Writes the live events that waited for the flush window, in one go (`shared`: the bytes of this flush's other streams of the audience). */
  flush (shared?: Shared<SharedWrite>): void {
    if (this.queued.length === 0) return
    const parts = this.queued
    this.queued = []
    this.send(parts, shared)
  }

  /** Frames that go out now, after those that waited, keeping the order. */
  private deliver (frames: readonly Buffer[]): void {
    this.flush()
    this.send([frames])
  }

  /** The frame the event sends this stream, if any: none for an event it has handled already. */
  private handle (storeId: string, event: ChangeEvent, before: ReadAccess | null | undefined): Buffer | null {
    if (this.closed || (storeId === this.storeId && event.seq <= this.lastSeq)) return null
    this.storeId = storeId
    this.lastSeq = event.seq
    return this.frameOf(storeId, event, before)
  }

  /** The frames the events send a stream of this audience (their order kept). */
  private framesOf (storeId: string, events: readonly FeedEvent[]): Buffer[] {
    const frames: Buffer[] = []
    for (const { event, before } of events) {
      const frame = this.frameOf(storeId, event, before)
      if (frame !== null) frames.push(frame)
    }
    return frames
  }

  /** The frame an event sends the viewer, by its rights and filters alone (the same for its whole audience). */
  private frameOf (storeId: string, event: ChangeEvent, before: ReadAccess | null | undefined): Buffer | null {
    const type = event.type as ChangeType
    const decided = verdict(type, event.access, before, this.viewer, this.settings.rules, this.settings.now())
    if (decided === 'skip') return null
    if (decided === 'unpublished') return wanted(this.params, event, 'object.unpublished') ? unpublishedFrameBytes(storeId, event) : null
    return wanted(this.params, event, type) ? eventFrameBytes(storeId, event) : null
  }

  /** Writes the frames of events (a list per message) in one go; their bytes are the audience's when another stream of it wrote the same lists at this flush. */
  private send (parts: readonly (readonly Buffer[])[], shared?: Shared<SharedWrite>): void {
    const count = parts.reduce((n, frames) => n + frames.length, 0)
    if (count === 0) return
    const known = shared?.get(this.audience)
    const bytes = known !== undefined && sameParts(known.parts, parts) ? known.bytes : joined(parts)
    if (shared !== undefined && known === undefined) shared.set(this.audience, { parts, bytes })
    if (this.writeNow(bytes)) liveMetrics.sent.inc(count)
  }

  /** A frame of the stream's own (retry, ping, reset), after the events that waited. */
  private write (frame: string): boolean {
    this.flush()
    return this.writeNow(frame)
  }

  /** Writes bytes unless the client has left too much unread, which ends the stream. */
  private writeNow (frame: string | Buffer): boolean {
    if (this.closed) return false
    if (this.out.unread > this.settings.maxBufferBytes) {
      this.drop('slow')
      return false
    }
    this.out.send(frame)
    return true
  }

  /** The position of the last event the stream handled, or where it started (null before it knows its store). */
  get position (): Position | null {
    return this.storeId === '' || this.lastSeq < 0 ? null : { storeId: this.storeId, seq: this.lastSeq }
  }

  /**
   * Ends the stream from the gateway's side, with a last frame when it has one to say (made from the
   * stream's position once what waited went out: null before it knows its store).
   */
  drop (reason: LiveDropReason, last?: string | ((at: Position | null) => string)): void {
    if (this.closed) return
    // a shutdown or a revocation still sends what waited (unless that finds the client too slow); a slow client gets nothing more
    if (reason !== 'slow') this.flush()
    if (this.closed) return
    liveMetrics.dropped.inc({ reason })
    if (last !== undefined) this.out.send(typeof last === 'string' ? last : last(this.position))
    // a client that does not read would hold the socket: its bytes are not waited for
    this.end(reason === 'slow')
  }

  /** `abort`: the connection is cut instead of the response ended. */
  private end (abort = false): void {
    if (this.closed) return
    this.closed = true
    clearInterval(this.ping)
    this.pending = null
    this.queued = []
    if (abort) this.out.destroy()
    else this.out.finish()
    this.onEnd(this)
  }
}

/** Whether two lists of message frames hold the same lists, by identity (the hub's shared ones). */
function sameParts (a: readonly (readonly Buffer[])[], b: readonly (readonly Buffer[])[]): boolean {
  return a.length === b.length && a.every((frames, i) => frames === b[i])
}

/** The bytes of frames, a list per message, in order. */
function joined (parts: readonly (readonly Buffer[])[]): Buffer {
  const only = parts.length === 1 ? parts[0] : undefined
  return only?.length === 1 ? only[0] as Buffer : Buffer.concat(parts.flat())
}
