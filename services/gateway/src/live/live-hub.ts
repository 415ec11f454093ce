import type { v1 } from '@content/protos'
import { LRUCache } from 'lru-cache'
import { HttpError } from '../http/errors.js'
import { accessAfter, accessBefore, mayRead, type Access, type Viewer } from './live-access.js'
import { parsePosition, SESSION_ENDED_FRAME, shutdownFrame, type Position } from './live-frames.js'
import { liveMetrics } from './live-metrics.js'
import type { LiveParams } from './live-params.js'
import { LiveFlushSchedule } from './flush-schedule.js'
import { LiveStream, type FeedEvent, type StreamSettings } from './live-stream.js'
import { RecentWindow } from './recent-window.js'

export interface LiveLimits {
  /** LIVE_MAX_STREAMS: streams on this gateway (past it: 503) */
  maxStreams: number
  /** LIVE_MAX_STREAMS_PER_CALLER: streams of one user, or of one client address when anonymous (past it: 429) */
  maxPerCaller: number
  /** the Retry-After of a refusal, seconds */
  retryAfterSeconds: number
  /** events kept in memory for resumes without a backend call */
  recentEvents: number
}

/** Reads the objects service's feed from a position until it has reached `until` (a resume that memory does not cover). */
export type Replayer = (from: Position, until: number, stream: LiveStream) => Promise<void>

/** Objects whose last known access is kept, to tell a caller that a change took one away (decisions §17). */
const ACCESS_KEPT = 100_000

/** Whether each login may go on (the auth service's CheckSessions), in the order asked. */
export type SessionCheck = (sessions: readonly { userId: number, session: string }[]) => Promise<boolean[]>

/** Sessions asked of the auth service in one call. */
const CHECK_BATCH = 1_000

/** Who a stream opens for. */
export interface Opener { viewer: Viewer, key: string, session: string, userId: number }

/**
 * The live streams of this gateway (decisions §17), fed by its one follower of the objects service's
 * change feed (`observe`, from change-watch.ts): no backend call per stream, but for a resume older than
 * the events kept in memory. Bounds streams per gateway and per caller.
 */
export class LiveHub {
  private storeId = ''
  private seq = 0
  private readonly streams = new Set<LiveStream>()
  private readonly perCaller = new Map<string, number>()
  /** callers at their bound: while there are none, a ticket's stream cannot meet a 429 (see `callerFull`) */
  private readonly fullCallers = new Set<string>()
  private readonly access = new LRUCache<number, Access>({ max: ACCESS_KEPT })
  /** logins found ended: a stream of theirs is refused at once (its access token may not have expired yet; kept as long as one lives) */
  private readonly endedLogins = new LRUCache<string, true>({ max: 10_000, ttl: 600_000 })
  /**
   * the latest events, oldest first, each with its object's access at the feed's previous event about it
   * (a resume from them tells a change that took an object away, as the live stream did); `floor`: every
   * event after it is among them
   */
  private readonly recent: RecentWindow<{ storeId: string } & FeedEvent>
  private floor = 0
  private closing = false
  private flushTimer: NodeJS.Timeout | null = null
  private readonly flushes: LiveFlushSchedule

  constructor (private readonly settings: StreamSettings, private readonly limits: LiveLimits, private readonly replayer: Replayer) {
    this.recent = new RecentWindow(limits.recentEvents)
    this.flushes = new LiveFlushSchedule(settings.flushMs)
  }

  get position (): Position { return { storeId: this.storeId, seq: this.seq } }
  get size (): number { return this.streams.size }
  /** the streams open now (the revocation check reads their sessions) */
  get streamsOpen (): readonly LiveStream[] { return [...this.streams] }
  /** whether some caller has as many streams open as it may (a ticket is then looked at before it is used) */
  get callerFull (): boolean { return this.fullCallers.size > 0 }

  /** Whether the viewer may read an object of this access now, by the rules events are sent by. */
  mayRead (access: Access | null | undefined, viewer: Viewer): boolean {
    return mayRead(access, viewer, this.settings.rules, this.settings.now())
  }

  /** A message of the gateway's change feed, after the read cache saw it. */
  observe (change: v1.Change__Output): void {
    const seq = Number(change.seq)
    if (change.reset || change.store_id !== this.storeId) {
      const known = this.storeId !== ''
      this.storeId = change.store_id
      this.seq = seq
      this.recent.clear()
      this.floor = seq
      this.access.clear()
      // the gateway's own feed could not resume: its streams may have missed events
      if (known) for (const stream of this.streams) stream.reset(this.position)
    }
    const events = change.events.map((event) => {
      const before = accessBefore(event, this.access.get(event.object_id))
      const after = accessAfter(event)
      if (after) this.access.set(event.object_id, after)
      else this.access.delete(event.object_id)
      const dropped = this.recent.push({ storeId: change.store_id, event, before })
      if (dropped !== undefined) this.floor = Number(dropped.event.seq)
      return { event, before }
    })
    if (events.length > 0) {
      // the streams of one audience share what they send of a message in strict order (LiveStream.live)
      const shared = events.every((e, i) => i === 0 || e.event.seq > (events[i - 1] as FeedEvent).event.seq) ? new Map() : undefined
      for (const stream of this.streams) stream.live(change.store_id, events, shared)
      this.flushSoon(Number((events[0] as FeedEvent).event.at))
    }
    this.seq = Math.max(this.seq, seq)
  }

  /**
   * One flush of every stream when the window says (LiveFlushSchedule: at most one a window, and by a
   * window after the oldest waiting event's commit when that allows): a write per stream per window,
   * whatever the feed's pace.
   */
  private flushSoon (committedAt: number): void {
    if (this.settings.flushMs <= 0) return
    const inMs = this.flushes.arrived(committedAt, Date.now())
    if (inMs === null) return
    if (this.flushTimer !== null) clearTimeout(this.flushTimer)
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null
      this.flushes.flushed(Date.now())
      const shared = new Map()
      for (const stream of this.streams) stream.flush(shared)
    }, inMs)
    this.flushTimer.unref()
  }

  /**
   * Decisions §17: ends the streams whose login was revoked or whose user was disabled. One call for the
   * sessions of every open stream (of users), in batches of CHECK_BATCH; a failed check ends nothing.
   */
  async checkSessions (check: SessionCheck): Promise<void> {
    const byKey = new Map<string, { userId: number, session: string }>()
    for (const stream of this.streams) if (stream.userId > 0) byKey.set(sessionKey(stream), { userId: stream.userId, session: stream.session })
    const refs = [...byKey.entries()]
    for (let i = 0; i < refs.length; i += CHECK_BATCH) {
      const batch = refs.slice(i, i + CHECK_BATCH)
      const alive = await check(batch.map(([, ref]) => ref))
      const dead = new Set(batch.filter((_, k) => alive[k] === false).map(([key]) => key))
      for (const key of dead) this.endedLogins.set(key, true)
      for (const stream of [...this.streams]) if (dead.has(sessionKey(stream))) stream.drop('revoked', SESSION_ENDED_FRAME)
    }
  }

  /** Refuses a stream past the limits (503 for the gateway's, 429 for the caller's; null: a caller not known yet). */
  admit (key: string | null): void {
    const retry = { 'retry-after': String(this.limits.retryAfterSeconds) }
    if (this.closing) throw new HttpError('SERVICE_UNAVAILABLE', 'the gateway is shutting down', null, retry)
    if (this.streams.size >= this.limits.maxStreams) {
      liveMetrics.refused.inc({ limit: 'gateway' })
      throw new HttpError('SERVICE_UNAVAILABLE', 'this gateway has as many live streams open as it takes; retry later', null, retry)
    }
    if (key !== null && (this.perCaller.get(key) ?? 0) >= this.limits.maxPerCaller) {
      liveMetrics.refused.inc({ limit: 'caller' })
      throw new HttpError('TOO_MANY_REQUESTS', `at most ${this.limits.maxPerCaller} live streams per caller`, null, retry)
    }
  }

  /** Refuses what `open` refuses: an ended login, a stream past the limits. */
  check (who: Opener): void {
    if (who.userId > 0 && this.endedLogins.has(sessionKey(who))) throw new HttpError('TOKEN_INVALID', 'the login of this token has ended')
    this.admit(who.key)
  }

  /** Opens a stream from `after` (a position as a stream sent it; null: from now). */
  open (who: Opener, params: LiveParams, after: string | null): LiveStream {
    this.check(who)
    const stream = new LiveStream(who.viewer, params, this.settings, who, (s) => this.ended(s))
    this.streams.add(stream)
    const count = (this.perCaller.get(who.key) ?? 0) + 1
    this.perCaller.set(who.key, count)
    if (count >= this.limits.maxPerCaller) this.fullCallers.add(who.key)
    liveMetrics.open.set(this.streams.size)
    this.catchUp(stream, after)
    return stream
  }

  /** Resumes from memory when it holds every event after the position, else from the objects service. */
  private catchUp (stream: LiveStream, after: string | null): void {
    if (after === null) {
      stream.startAt(this.position)
      stream.caughtUp()
      return
    }
    const from = parsePosition(after)
    if (from === null || (this.storeId !== '' && (from.storeId !== this.storeId))) {
      stream.reset(this.position)
      stream.caughtUp()
      return
    }
    stream.startAt(from)
    if (this.storeId !== '' && from.seq <= this.seq && from.seq >= this.floor) {
      for (const { storeId, event, before } of this.recent) if (event.seq > from.seq) stream.replayed(storeId, event, before)
      stream.caughtUp()
      return
    }
    this.replayer(from, this.seq, stream).then(() => stream.caughtUp(), () => {
      stream.reset(this.position)
      stream.caughtUp()
    })
  }

  private ended (stream: LiveStream): void {
    if (!this.streams.delete(stream)) return
    const left = (this.perCaller.get(stream.key) ?? 1) - 1
    if (left > 0) this.perCaller.set(stream.key, left)
    else this.perCaller.delete(stream.key)
    if (left < this.limits.maxPerCaller) this.fullCallers.delete(stream.key)
    liveMetrics.open.set(this.streams.size)
  }

  /** Shutdown: no new stream; every open one ends with `event: shutdown`. */
  close (): void {
    this.closing = true
    if (this.flushTimer !== null) clearTimeout(this.flushTimer)
    this.flushTimer = null
    this.flushes.cancelled()
    for (const stream of [...this.streams]) stream.drop('shutdown', shutdownFrame)
  }
}

const sessionKey = (s: { userId: number, session: string }): string => `${s.userId}:${s.session}`
