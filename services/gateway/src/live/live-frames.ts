import { changeBody, type ChangeType } from '@content/api-schema'
import type { v1 } from '@content/protos'

/*
 * The Server-Sent Events a live stream writes (decisions §17). `id:` is a position: the store's id and the
 * event's number, opaque to clients, which send it back as Last-Event-ID (or `?after=`) to resume.
 */

/** A position of the store `storeId`: after its event `seq`. */
export interface Position { storeId: string, seq: number }

export const formatPosition = (p: Position): string => `${p.seq}.${p.storeId}`

/** A position as a stream wrote it; null for anything else (another format, a number past safe integers). */
export function parsePosition (text: string): Position | null {
  const match = /^(0|[1-9][0-9]{0,15})\.([A-Za-z0-9-]{1,64})$/.exec(text)
  if (!match) return null
  const seq = Number(match[1])
  return Number.isSafeInteger(seq) ? { storeId: match[2] as string, seq } : null
}

/** The frame of an event: its position, its type, and the body a webhook gets (ids and types only). */
export function eventFrame (storeId: string, event: v1.ChangeEvent__Output): string {
  const body = changeBody({ ...event, type: event.type as ChangeType })
  return `id: ${formatPosition({ storeId, seq: event.seq })}\nevent: ${event.type}\ndata: ${JSON.stringify(body)}\n\n`
}

/** Decisions §17: a change that took the object away from the caller says only which object. */
export function unpublishedFrame (storeId: string, event: v1.ChangeEvent__Output): string {
  const body = { type: 'object.unpublished', timestamp: new Date(event.at).toISOString(), data: { seq: event.seq, object_id: event.object_id, object_type: event.object_type } }
  return `id: ${formatPosition({ storeId, seq: event.seq })}\nevent: object.unpublished\ndata: ${JSON.stringify(body)}\n\n`
}

/**
 * A frame as bytes, made once per event and kind: the hub hands one event object to every stream, so a
 * thousand streams that send it share one Buffer instead of each building and encoding the same text
 * (keyed by the event object, held no longer than it is).
 */
function once (made: WeakMap<v1.ChangeEvent__Output, { storeId: string, bytes: Buffer }>, frame: (storeId: string, event: v1.ChangeEvent__Output) => string) {
  return (storeId: string, event: v1.ChangeEvent__Output): Buffer => {
    const known = made.get(event)
    if (known?.storeId === storeId) return known.bytes
    const bytes = Buffer.from(frame(storeId, event))
    made.set(event, { storeId, bytes })
    return bytes
  }
}

export const eventFrameBytes = once(new WeakMap(), eventFrame)
export const unpublishedFrameBytes = once(new WeakMap(), unpublishedFrame)

/** The position could not be resumed: the client re-reads what it shows; the id lets its next reconnect resume from here. */
export const resetFrame = (at: Position): string => `id: ${formatPosition(at)}\nevent: reset\ndata: {"type":"reset"}\n\n`

/**
 * The gateway is shutting down: the client reconnects (to another gateway) with its last position, the
 * stream's own (`at`): a client that was sent no event since it opened has no other to resume from.
 */
export const shutdownFrame = (at: Position | null): string =>
  `${at === null ? '' : `id: ${formatPosition(at)}\n`}event: shutdown\ndata: {"type":"shutdown"}\n\n`

/** The caller's login was revoked or its user disabled: reconnecting needs a new login. */
export const SESSION_ENDED_FRAME = 'event: revoked\ndata: {"type":"revoked"}\n\n'

/** A comment line that keeps proxies from closing an idle stream. */
export const PING_FRAME = ': ping\n\n'

/** Sent first: how long an EventSource waits before it reconnects (ms). */
export const retryFrame = (ms: number): string => `retry: ${ms}\n\n`
