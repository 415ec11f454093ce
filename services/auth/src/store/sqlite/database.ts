import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { traceStatements } from '@content/platform'
import Database from 'better-sqlite3'

export type SqliteDb = Database.Database

/** The auth service's one SQLite file under DATA_DIR; durable before a write is acknowledged. */
export function openAuthDatabase (dataDir: string): SqliteDb {
  mkdirSync(dataDir, { recursive: true })
  const db = traceStatements(new Database(join(dataDir, 'auth.sqlite')))
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  return db
}
