import type Database from 'better-sqlite3'
import { OWN_FIELD_NAMES, OWN_FIELDS, type FieldKind, type OwnFieldName } from '@content/api-schema'

/** The column of each kind of own field (object-fields.ts). */
const COLUMN_OF: Record<FieldKind, string> = {
  text: 'TEXT', line: "TEXT NOT NULL DEFAULT ''", lang: "TEXT NOT NULL DEFAULT ''", flag: 'INTEGER NOT NULL DEFAULT 1', date: 'INTEGER',
}
const ownColumn = (f: OwnFieldName) => `${f} ${COLUMN_OF[OWN_FIELDS[f].kind]}`

/**
 * The schema, created idempotently at start. Ids come from one global sequence (objects.id
 * AUTOINCREMENT never reuses an id). `closure` holds every (ancestor, descendant) pair of the tree,
 * reflexive rows included, with the number of distinct paths so that removing one of several
 * parent edges keeps the pairs still reachable another way.
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS objects (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  object_type TEXT NOT NULL,
  nickname TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL CHECK (status IN ('on', 'off', 'draft')),
  ${OWN_FIELD_NAMES.map(ownColumn).join(',\n  ')},
  created INTEGER NOT NULL, modified INTEGER NOT NULL,
  user_created INTEGER NOT NULL DEFAULT 0, user_modified INTEGER NOT NULL DEFAULT 0,
  read_groups TEXT,   -- JSON array of group names; NULL = not protected
  write_groups TEXT,  -- JSON array of group names; NULL = writer groups decide
  file TEXT           -- JSON media file
);
CREATE INDEX IF NOT EXISTS objects_start ON objects(start_date) WHERE start_date IS NOT NULL;
CREATE INDEX IF NOT EXISTS objects_end ON objects(end_date) WHERE end_date IS NOT NULL;
-- filesInUse: which content keys an object's file still uses
CREATE INDEX IF NOT EXISTS objects_file_key ON objects(json_extract(file, '$.key'));

-- Files stored by the poster service, waiting for the write that attaches them (decisions §12).
CREATE TABLE IF NOT EXISTS uploads (
  token_hash TEXT PRIMARY KEY,  -- SHA-256 hex of the token; the token is never stored
  user_id INTEGER NOT NULL,
  object_type TEXT NOT NULL,
  file_key TEXT NOT NULL,
  file TEXT NOT NULL,           -- JSON media file
  expires_at INTEGER NOT NULL   -- ms since the epoch, exclusive
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS uploads_file_key ON uploads(file_key, expires_at);
CREATE INDEX IF NOT EXISTS uploads_expiry ON uploads(expires_at);

CREATE TABLE IF NOT EXISTS translations (
  object_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  lang TEXT NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY (object_id, lang, field)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS custom_properties (
  object_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  name TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY (object_id, name)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS tree (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,  -- insertion order: the first parent has the lowest seq
  parent_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  object_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  priority INTEGER NOT NULL,
  UNIQUE (parent_id, object_id)
);
CREATE INDEX IF NOT EXISTS tree_children ON tree(parent_id, priority, object_id);
CREATE INDEX IF NOT EXISTS tree_parents ON tree(object_id, seq);

CREATE TABLE IF NOT EXISTS closure (
  ancestor_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  descendant_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  paths INTEGER NOT NULL,
  priority INTEGER,  -- the descendant's place in the ancestor's subtree: subtree-order.sqlite.ts
  PRIMARY KEY (ancestor_id, descendant_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS closure_up ON closure(descendant_id, ancestor_id);

CREATE TABLE IF NOT EXISTS relations (
  object_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  related_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  priority INTEGER,
  params TEXT,
  PRIMARY KEY (object_id, name, related_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS relations_order ON relations(object_id, name, priority, related_id);
CREATE INDEX IF NOT EXISTS relations_back ON relations(related_id);

CREATE TABLE IF NOT EXISTS tags (
  id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, label TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS object_tags (
  object_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  publication_date INTEGER,  -- the object's, for a tag's objects in date order: list-indexes.sqlite.ts
  PRIMARY KEY (object_id, tag_id)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS categories (
  id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, label TEXT NOT NULL,
  area_id INTEGER REFERENCES objects(id) ON DELETE SET NULL
);
CREATE TABLE IF NOT EXISTS object_categories (
  object_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  category_id INTEGER NOT NULL REFERENCES categories(id) ON DELETE CASCADE,
  PRIMARY KEY (object_id, category_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS object_categories_by_category ON object_categories(category_id, object_id);

CREATE TABLE IF NOT EXISTS geo_tags (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  object_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  latitude REAL NOT NULL, longitude REAL NOT NULL,
  address TEXT NOT NULL DEFAULT '', title TEXT NOT NULL DEFAULT '',
  gmaps_lookats TEXT
);
CREATE INDEX IF NOT EXISTS geo_tags_object ON geo_tags(object_id);

CREATE TABLE IF NOT EXISTS date_items (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  object_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  start_date INTEGER, end_date INTEGER,
  days TEXT NOT NULL DEFAULT '[]'  -- JSON array of weekdays, 0 = Sunday
);
CREATE INDEX IF NOT EXISTS date_items_object ON date_items(object_id);

-- The outbox (decisions §13): what each committed write changed, ids and types only. AUTOINCREMENT
-- never reuses a number, so a consumer's position stays meaningful after pruning.
CREATE TABLE IF NOT EXISTS changes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT NOT NULL,
  object_id INTEGER NOT NULL, object_type TEXT NOT NULL,
  related_id INTEGER, related_type TEXT, relation TEXT,
  parent_id INTEGER, parent_type TEXT,
  at INTEGER NOT NULL,
  affects TEXT NOT NULL  -- JSON array of object ids whose reads may show the change
);
CREATE INDEX IF NOT EXISTS changes_at ON changes(at);

-- Webhook subscriptions and their deliveries (decisions §13). after_seq: every event up to it has a
-- delivery or was not wanted by the subscription.
CREATE TABLE IF NOT EXISTS webhooks (
  id TEXT PRIMARY KEY, url TEXT NOT NULL, events TEXT NOT NULL, secret TEXT NOT NULL,
  active INTEGER NOT NULL DEFAULT 1, created INTEGER NOT NULL, after_seq INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0, created INTEGER NOT NULL,
  first_attempt_at INTEGER, next_attempt_at INTEGER NOT NULL,
  last_status INTEGER NOT NULL DEFAULT 0, last_error TEXT NOT NULL DEFAULT '', delivered_at INTEGER,
  UNIQUE (webhook_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS webhook_deliveries_pending ON webhook_deliveries(webhook_id, status, seq);
CREATE INDEX IF NOT EXISTS webhook_deliveries_recent ON webhook_deliveries(webhook_id, created);

-- Who runs a singleton task (the webhook delivery loop) until when.
CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;

-- Idempotency keys of guarded writes (POST with Idempotency-Key), per user: recorded in the write's
-- transaction, answered for 24 h, then dropped by the retention job.
CREATE TABLE IF NOT EXISTS idempotency (
  user_id INTEGER NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,  -- the gateway's fingerprint of the request
  outcome TEXT NOT NULL,       -- JSON: what the write did, enough to rebuild its answer
  response TEXT,               -- JSON: the answer given, stored once it was built
  created_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idempotency_created ON idempotency(created_at);

-- One row per store: its identity, which a change-feed consumer's position belongs to.
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
`

/** The own fields (OWN_FIELDS) the objects table has no column for yet. */
export function missingOwnFields (db: Database.Database): OwnFieldName[] {
  const present = new Set((db.pragma('table_info(objects)') as { name: string }[]).map((c) => c.name))
  return OWN_FIELD_NAMES.filter((field) => !present.has(field))
}

/**
 * A store made before an own field existed gets its column (with the field's kind's default) when it is
 * migrated (migrations.sqlite.ts): a field added to OWN_FIELDS needs no numbered migration of its own.
 */
export function addOwnFieldColumns (db: Database.Database): void {
  for (const field of missingOwnFields(db)) db.exec(`ALTER TABLE objects ADD COLUMN ${ownColumn(field)}`)
}

/**
 * SQLite's page cache, MiB. Its own default is 2 MiB: a write in a large store then reads the index pages
 * it changes from the file again (the pages of a read come from the kernel's cache cheaply enough).
 */
export const SQLITE_CACHE_MB = 64

export function applyPragmas (db: Database.Database, cacheMb = SQLITE_CACHE_MB): void {
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  db.pragma(`cache_size = ${-Math.round(cacheMb * 1024)}`)
  db.pragma(`temp_store = ${TEMP_STORE}`)
}

/**
 * Every write runs in a savepoint of its turn's transaction (commits.sqlite.ts), and SQLite keeps the
 * pages a savepoint first changes in a sub-journal, in a temporary file once it passes 64 KiB: a create
 * passed it, so each turn opened, wrote and dropped a file, and its tree and closure inserts cost 0.08–0.10
 * ms each instead of 0.01–0.04 (timed per statement, loadtest/README.md). In memory, the sub-journal costs
 * no system calls; a large ordinary write (1,000 children placed at once) is faster too. Large sorts
 * and temporary indexes live in memory as well. A fixtures import, the one write of hundreds of
 * megabytes, runs in a transaction of its own with no savepoint (`Commits.writeNow`), so no sub-journal.
 */
const TEMP_STORE = 'MEMORY'

/** Case-insensitive containment and prefix with full Unicode lower-casing (SQLite's lower() is ASCII only); the needle comes lower-cased. */
export function registerFunctions (db: Database.Database): void {
  db.function('ci_contains', { deterministic: true }, (haystack: unknown, needle: unknown) =>
    typeof haystack === 'string' && typeof needle === 'string' && haystack.toLowerCase().includes(needle) ? 1 : 0)
  db.function('ci_starts_with', { deterministic: true }, (haystack: unknown, prefix: unknown) =>
    typeof haystack === 'string' && typeof prefix === 'string' && haystack.toLowerCase().startsWith(prefix) ? 1 : 0)
}
