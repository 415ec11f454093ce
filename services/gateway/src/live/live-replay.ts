import type { v1 } from '@content/protos'
import type { Position } from './live-frames.js'
import type { LiveStream } from './live-stream.js'

/**
 * A resume older than the events the gateway keeps: one WatchChanges call from the client's position,
 * whose replay goes to the stream until it reaches `until` (the gateway feed's position when the stream
 * opened; newer events wait in the stream); then it is cancelled. A position the store does not hold
 * (pruned, ahead of its head, another store) comes back as `reset`, which the stream tells the client.
 * Fails after `timeoutMs` without reaching `until` (the stream then says reset).
 */
export function replayer (raw: v1.ObjectServiceClient, timeoutMs: number) {
  return (from: Position, until: number, stream: LiveStream): Promise<void> => new Promise((resolve, reject) => {
    const call = raw.WatchChanges({ store_id: from.storeId, after_seq: from.seq, heartbeat_ms: 0 })
    let settled = false
    const finish = (err?: Error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      call.removeAllListeners('data')
      call.on('error', () => {})
      call.cancel()
      if (err) reject(err)
      else resolve()
    }
    const timer = setTimeout(() => finish(new Error('the replay did not catch up in time')), timeoutMs)
    timer.unref()
    call.on('data', (change: v1.Change__Output) => {
      if (stream.isClosed) return finish()
      const seq = Number(change.seq)
      if (change.reset) {
        stream.reset({ storeId: change.store_id, seq })
        return finish()
      }
      for (const event of change.events) stream.replayed(change.store_id, event)
      if (seq >= until) finish()
    })
    call.on('error', (err: Error) => finish(err))
    call.on('end', () => finish(new Error('the replay ended early')))
  })
}
