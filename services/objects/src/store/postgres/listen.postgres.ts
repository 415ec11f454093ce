import type { Postgres } from '@content/platform/postgres'
import type pg from 'pg'

/** How long a lost listening connection waits before it connects again. */
const RECONNECT_MS = 1_000

/**
 * Tells `heard` of every commit another process made on the store (NOTIFY from its numbering run,
 * sequencer.postgres.ts, delivered when the run commits), on a connection of its own that LISTENs and
 * reconnects when it breaks. The change feed also reads the outbox on a timer, so a notice lost while
 * the connection was down costs only that delay. This process's own commits are told by its writes and
 * ignored here.
 */
export async function listenForCommits (postgres: Postgres, channel: string, origin: string, heard: () => void): Promise<{ close: () => Promise<void> }> {
  let client: pg.Client | null = null
  let closed = false
  let timer: NodeJS.Timeout | null = null
  const later = (): void => {
    if (!closed && timer === null) timer = setTimeout(() => { timer = null; connect().catch(later) }, RECONNECT_MS).unref()
  }
  const connect = async (): Promise<void> => {
    const c = await postgres.session()
    client = c
    const retry = (): void => {
      if (closed || client !== c) return
      client = null
      c.end().catch(() => {})
      later()
    }
    c.on('error', retry)
    c.on('end', retry)
    c.on('notification', (n) => { if (n.channel === channel && !(n.payload ?? '').endsWith(` ${origin}`)) heard() })
    await c.query(`LISTEN "${channel.replaceAll('"', '""')}"`)
    if (closed) { await c.end(); return }
    // commits made while no connection listened are read by the feed's next poll; this is for promptness
    heard()
  }
  await connect()
  return {
    close: async () => {
      closed = true
      if (timer !== null) clearTimeout(timer)
      await client?.end().catch(() => {})
    },
  }
}
