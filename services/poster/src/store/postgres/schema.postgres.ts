import type { Migration } from '@content/platform/migrations'
import type { Queryable } from '@content/platform/postgres'

/** The PostgreSQL schema (namespace) of the poster service's tables: one database may hold every service's. */
export const POSTER_SCHEMA = 'poster'

/**
 * Bytes of an original per row of `poster.original_chunks`: GridFS's default. A Range read fetches only
 * the rows it overlaps; a row is at most this much memory on either side.
 */
export const CHUNK_BYTES = 255 * 1024

/**
 * The poster service's PostgreSQL tables, version by version (poster.schema_migrations). Originals are
 * chunked as GridFS does: a files table (by content key, so identical bytes are stored once) and a chunks
 * table of bytea; a thumbnail is one row of an unlogged table (the port hands it over whole, it is small, and
 * losing it costs a render). Times are ms.
 */
export const POSTER_POSTGRES_MIGRATIONS: Migration<Queryable>[] = [
  {
    version: 1,
    name: 'originals in chunks, thumbnails',
    async up (q) {
      await q.query(`
CREATE TABLE poster.originals (
  key text PRIMARY KEY CHECK (key ~ '^[0-9a-f]{64}$'),  -- SHA-256 of the bytes
  length bigint NOT NULL,
  chunk_bytes integer NOT NULL,
  mime_type text NOT NULL,
  used bigint NOT NULL                                   -- last stored (or stored again)
);
CREATE INDEX originals_used ON poster.originals (used);
CREATE TABLE poster.original_chunks (
  key text NOT NULL REFERENCES poster.originals(key) ON DELETE CASCADE,
  n integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (key, n)
);
-- the chunks are compressed media already: stored as they come, out of line, without another compression pass
ALTER TABLE poster.original_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
-- a cache (a lost thumbnail costs a render): unlogged, so neither a put nor a read's mark of use waits for
-- the log on disk; PostgreSQL empties it after a crash, and a standby has none after a failover
CREATE UNLOGGED TABLE poster.thumbnails (
  name text PRIMARY KEY,
  original text NOT NULL,                                -- an original's key, or 'placeholder'
  length integer NOT NULL,
  used bigint NOT NULL,
  data bytea NOT NULL
);
ALTER TABLE poster.thumbnails ALTER COLUMN data SET STORAGE EXTERNAL;
CREATE INDEX thumbnails_original ON poster.thumbnails (original);
CREATE INDEX thumbnails_used ON poster.thumbnails (used);
`)
    },
  },
]
