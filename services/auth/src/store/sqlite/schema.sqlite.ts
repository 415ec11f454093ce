import type { SqliteMigration } from '@content/platform/migrations'
import type Database from 'better-sqlite3'

type SqliteDb = Database.Database

/**
 * The auth service's SQLite schema, version by version (the file's `user_version`). Version 1 is the
 * schema of the last release before versions, made idempotently: on such a file it adds only what that
 * release added on open (users.sessions_since) and the refresh-token tables a file used with Redis lacks.
 */
export const AUTH_SQLITE_MIGRATIONS: SqliteMigration<SqliteDb>[] = [
  {
    version: 1,
    name: 'users, groups, API keys, refresh tokens',
    up (db) {
      db.exec(`
CREATE TABLE IF NOT EXISTS groups (
  name TEXT PRIMARY KEY,
  backend_auth INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  username TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  name TEXT NOT NULL DEFAULT '',
  email TEXT NOT NULL DEFAULT '',
  created INTEGER NOT NULL,
  card_id INTEGER,
  disabled INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS user_groups (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  group_name TEXT NOT NULL REFERENCES groups(name),
  PRIMARY KEY (user_id, group_name)
);
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  groups TEXT NOT NULL,      -- JSON array of group names
  created INTEGER NOT NULL,
  expires_at INTEGER,
  last_used INTEGER
);
CREATE TABLE IF NOT EXISTS refresh_tokens (
  hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL,
  family_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'rotated')),
  rotated_at INTEGER,
  successor TEXT
);
CREATE INDEX IF NOT EXISTS refresh_tokens_expiry ON refresh_tokens (expires_at);
CREATE TABLE IF NOT EXISTS revoked_families (
  family_id TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS revoked_families_expiry ON revoked_families (expires_at);
`)
      const columns = db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('users')").all().map((c) => c.name)
      if (!columns.includes('sessions_since')) db.exec('ALTER TABLE users ADD COLUMN sessions_since INTEGER NOT NULL DEFAULT 0')
    },
  },
  {
    version: 2,
    // decisions §17: single-use tickets of live streams, one row each until used or expired
    name: 'stream tickets',
    up (db) {
      db.exec('CREATE TABLE IF NOT EXISTS stream_tickets (hash TEXT PRIMARY KEY, caller TEXT NOT NULL, expires_at INTEGER NOT NULL)')
    },
  },
]

/** A file with the users table but no recorded version: an earlier release wrote it. */
export const earlierSqliteRelease = (db: SqliteDb): boolean =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'users'").get() !== undefined
