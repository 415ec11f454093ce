import type { Postgres } from '@content/platform/postgres'
import { parseTicketCaller, type TicketsStore } from '../tickets.store.js'

/** Stream tickets in the `auth` schema: a DELETE … RETURNING takes one once, whichever replica asks. */
export function createPostgresTicketsStore (db: Postgres): TicketsStore {
  return {
    async put (hash, caller, expiresAt) {
      await db.query('DELETE FROM auth.stream_tickets WHERE expires_at <= $1', [Date.now()])
      await db.query('INSERT INTO auth.stream_tickets (hash, caller, expires_at) VALUES ($1, $2, $3)', [hash, JSON.stringify(caller), expiresAt])
    },
    async take (hash, now) {
      const { rows } = await db.query<{ caller: string }>('DELETE FROM auth.stream_tickets WHERE hash = $1 AND expires_at > $2 RETURNING caller', [hash, now])
      const row = rows[0]
      return row ? parseTicketCaller(row.caller) : null
    },
    async peek (hash, now) {
      const { rows } = await db.query<{ caller: string }>('SELECT caller FROM auth.stream_tickets WHERE hash = $1 AND expires_at > $2', [hash, now])
      const row = rows[0]
      return row ? parseTicketCaller(row.caller) : null
    },
  }
}
