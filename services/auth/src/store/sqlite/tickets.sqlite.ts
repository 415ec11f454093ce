import { parseTicketCaller, type TicketsStore } from '../tickets.store.js'
import type { SqliteDb } from './database.js'

/** Stream tickets in the auth service's SQLite file; expired rows are swept as new ones are put. */
export function createSqliteTicketsStore (db: SqliteDb): TicketsStore {
  const insert = db.prepare('INSERT INTO stream_tickets (hash, caller, expires_at) VALUES (?, ?, ?)')
  const sweep = db.prepare('DELETE FROM stream_tickets WHERE expires_at <= ?')
  const take = db.prepare<[string, number], { caller: string }>('DELETE FROM stream_tickets WHERE hash = ? AND expires_at > ? RETURNING caller')
  const peek = db.prepare<[string, number], { caller: string }>('SELECT caller FROM stream_tickets WHERE hash = ? AND expires_at > ?')
  return {
    async put (hash, caller, expiresAt) {
      sweep.run(Date.now())
      insert.run(hash, JSON.stringify(caller), expiresAt)
    },
    async take (hash, now) {
      const row = take.get(hash, now)
      return row ? parseTicketCaller(row.caller) : null
    },
    async peek (hash, now) {
      const row = peek.get(hash, now)
      return row ? parseTicketCaller(row.caller) : null
    },
  }
}
