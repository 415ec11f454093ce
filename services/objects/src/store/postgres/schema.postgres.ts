import { OWN_FIELD_NAMES, OWN_FIELDS, type FieldKind, type OwnFieldName } from '@content/api-schema'
import { SEARCHED_FIELDS } from '../../core/text-search.js'
import { KEPT_COUNTS } from './kept-counts.postgres.js'

/** The column of each kind of own field (object-fields.ts); flags as 0/1, as the SQLite store keeps them. */
const COLUMN_OF: Record<FieldKind, string> = {
  text: 'text', line: "text NOT NULL DEFAULT ''", lang: "text NOT NULL DEFAULT ''", flag: 'smallint NOT NULL DEFAULT 1', date: 'bigint',
}
export const ownColumn = (f: OwnFieldName): string => `${f} ${COLUMN_OF[OWN_FIELDS[f].kind]}`

/**
 * The lower-cased text a search compares (decisions §3: JavaScript's toLowerCase, Unicode's default case
 * mapping): ICU's root locale maps case as JavaScript does (final sigma, İ → i̇), where the database's
 * own collation may map only ASCII. The trigram indexes are built on exactly this expression.
 */
export const lowered = (column: string): string => `lower(${column} COLLATE "und-x-icu")`

/**
 * Migration 1: the objects store as the SQLite store has it (schema.sqlite.ts and the files beside it),
 * in PostgreSQL's terms:
 * - ids from one sequence (never reused); nicknames unique across live and trashed objects by the
 *   `nicknames` table's key, so two writers on two processes cannot both take one;
 * - `closure` holds every (ancestor, descendant) pair with its number of paths and the descendant's
 *   subtree priority (subtree-order.sqlite.ts), kept by the write steps;
 * - children, descendants and a tag's objects counted by triggers in the write's transaction
 *   (kept-counts.postgres.ts);
 * - the outbox `changes`, written unnumbered by each write and numbered after its commit (a fixtures
 *   import numbers its own as it copies them), in order and without gaps, through the one row of
 *   `change_head` (outbox.postgres.ts, sequencer.postgres.ts), and `meta` with the
 *   store's id and the schedule's watermark;
 * - searches narrowed by pg_trgm GIN indexes over the lower-cased texts.
 */
export const MIGRATION_1 = `
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE SEQUENCE objects_id_seq;
CREATE TABLE objects (
  id bigint PRIMARY KEY DEFAULT nextval('objects_id_seq'),
  object_type text NOT NULL,
  nickname text NOT NULL UNIQUE,
  status text NOT NULL CHECK (status IN ('on', 'off', 'draft')),
  ${OWN_FIELD_NAMES.map(ownColumn).join(',\n  ')},
  created bigint NOT NULL, modified bigint NOT NULL,
  user_created integer NOT NULL DEFAULT 0, user_modified integer NOT NULL DEFAULT 0,
  read_groups text[],   -- NULL = not protected
  write_groups text[],  -- NULL = writer groups decide
  file text,            -- JSON media file
  file_key text GENERATED ALWAYS AS (file::json ->> 'key') STORED
);
ALTER SEQUENCE objects_id_seq OWNED BY objects.id;
CREATE INDEX objects_start ON objects(start_date) WHERE start_date IS NOT NULL;
CREATE INDEX objects_end ON objects(end_date) WHERE end_date IS NOT NULL;
CREATE INDEX objects_file_key ON objects(file_key) WHERE file_key IS NOT NULL;
CREATE INDEX objects_publication ON objects(publication_date, id);
CREATE INDEX objects_publication_desc ON objects(publication_date DESC NULLS LAST, id);
${SEARCHED_FIELDS.map((f) => `CREATE INDEX objects_${f}_trgm ON objects USING gin (${lowered(f)} gin_trgm_ops);`).join('\n')}

-- every nickname in use, by a live object or a trashed one (decisions §16: a trashed object keeps it)
CREATE TABLE nicknames (nickname text PRIMARY KEY, object_id bigint NOT NULL);
CREATE INDEX nicknames_object ON nicknames(object_id);

CREATE TABLE uploads (
  token_hash text PRIMARY KEY,
  user_id integer NOT NULL,
  object_type text NOT NULL,
  file_key text NOT NULL,
  file text NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX uploads_file_key ON uploads(file_key, expires_at);
CREATE INDEX uploads_expiry ON uploads(expires_at);

CREATE TABLE translations (
  object_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  lang text NOT NULL, field text NOT NULL, value text NOT NULL,
  PRIMARY KEY (object_id, lang, field)
);
CREATE TABLE custom_properties (
  object_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  name text NOT NULL, value text NOT NULL,
  PRIMARY KEY (object_id, name)
);

CREATE TABLE tree (
  seq bigint GENERATED ALWAYS AS IDENTITY,  -- placing order: the first parent has the lowest
  parent_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  object_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  priority bigint NOT NULL,
  PRIMARY KEY (parent_id, object_id)
);
CREATE INDEX tree_children ON tree(parent_id, priority, object_id);
CREATE INDEX tree_parents ON tree(object_id, seq);

CREATE TABLE closure (
  ancestor_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  descendant_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  paths bigint NOT NULL,
  priority bigint,  -- the descendant's lowest priority under a parent inside the ancestor's subtree
  PRIMARY KEY (ancestor_id, descendant_id)
);
CREATE INDEX closure_up ON closure(descendant_id, ancestor_id);
CREATE INDEX closure_order ON closure(ancestor_id, priority, descendant_id);

CREATE TABLE relations (
  object_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  name text NOT NULL,
  related_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  priority bigint,
  params text,
  PRIMARY KEY (object_id, name, related_id)
);
CREATE INDEX relations_order ON relations(object_id, name, priority, related_id);
CREATE INDEX relations_back ON relations(related_id);

CREATE TABLE tags (id serial PRIMARY KEY, name text NOT NULL UNIQUE, label text NOT NULL);
CREATE TABLE object_tags (
  object_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  tag_id integer NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  publication_date bigint,  -- the object's: a tag's objects in date order (list-indexes.sqlite.ts)
  PRIMARY KEY (object_id, tag_id)
);
CREATE INDEX object_tags_by_date ON object_tags(tag_id, publication_date DESC NULLS LAST, object_id);

CREATE TABLE categories (
  id serial PRIMARY KEY, name text NOT NULL UNIQUE, label text NOT NULL,
  area_id bigint REFERENCES objects(id) ON DELETE SET NULL
);
CREATE TABLE object_categories (
  object_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  category_id integer NOT NULL REFERENCES categories(id) ON DELETE CASCADE,
  PRIMARY KEY (object_id, category_id)
);
CREATE INDEX object_categories_by_category ON object_categories(category_id, object_id);

CREATE TABLE geo_tags (
  id serial PRIMARY KEY,
  object_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  latitude double precision NOT NULL, longitude double precision NOT NULL,
  address text NOT NULL DEFAULT '', title text NOT NULL DEFAULT '',
  gmaps_lookats text
);
CREATE INDEX geo_tags_object ON geo_tags(object_id);

CREATE TABLE date_items (
  id serial PRIMARY KEY,
  object_id bigint NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
  start_date bigint, end_date bigint,
  days text NOT NULL DEFAULT '[]'
);
CREATE INDEX date_items_object ON date_items(object_id);

-- the outbox (decisions §13): a write inserts its events unnumbered; the sequencer numbers committed
-- ones in order, from change_head (outbox.postgres.ts)
CREATE TABLE changes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- the order events were recorded in
  seq bigint UNIQUE,                                   -- NULL until numbered
  xact xid8 NOT NULL DEFAULT pg_current_xact_id(),     -- the write's transaction: its events are numbered together
  type text NOT NULL,
  object_id bigint NOT NULL, object_type text NOT NULL,
  related_id bigint, related_type text, relation text,
  parent_id bigint, parent_type text,
  at bigint NOT NULL,
  affects text NOT NULL  -- JSON array of object ids whose reads may show the change
);
CREATE INDEX changes_at ON changes(at);
CREATE INDEX changes_unnumbered ON changes(id) WHERE seq IS NULL;
CREATE TABLE change_head (one boolean PRIMARY KEY DEFAULT true CHECK (one), last bigint NOT NULL);
INSERT INTO change_head (last) VALUES (0);

CREATE TABLE webhooks (
  id text PRIMARY KEY, url text NOT NULL, events text NOT NULL, secret text NOT NULL,
  active integer NOT NULL DEFAULT 1, created bigint NOT NULL, after_seq bigint NOT NULL
);
CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  webhook_id text NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  seq bigint NOT NULL, type text NOT NULL, payload text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0, created bigint NOT NULL,
  first_attempt_at bigint, next_attempt_at bigint NOT NULL,
  last_status integer NOT NULL DEFAULT 0, last_error text NOT NULL DEFAULT '', delivered_at bigint,
  UNIQUE (webhook_id, seq)
);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(webhook_id, status, seq);
CREATE INDEX webhook_deliveries_recent ON webhook_deliveries(webhook_id, created);
CREATE TABLE leases (name text PRIMARY KEY, holder text NOT NULL, expires_at bigint NOT NULL);

CREATE TABLE idempotency (
  user_id integer NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  outcome text NOT NULL,
  response text,
  created_at bigint NOT NULL,
  PRIMARY KEY (user_id, key)
);
CREATE INDEX idempotency_created ON idempotency(created_at);

CREATE TABLE trash (
  id bigint PRIMARY KEY,
  object_type text NOT NULL,
  nickname text NOT NULL UNIQUE,
  read_groups text[], write_groups text[],
  file_key text,
  deleted bigint NOT NULL,
  user_id integer NOT NULL,
  view text NOT NULL,  -- JSON {record, details}
  rows text NOT NULL   -- JSON: the object's own rows by table, its parents and its relations both ways
);
CREATE INDEX trash_deleted ON trash(deleted);
CREATE INDEX trash_file_key ON trash(file_key) WHERE file_key IS NOT NULL;

CREATE TABLE revisions (
  object_id bigint NOT NULL,
  revision integer NOT NULL,
  created bigint NOT NULL,
  user_id integer NOT NULL,
  changed text NOT NULL,
  data text NOT NULL,
  PRIMARY KEY (object_id, revision)
);

CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);

-- a tag row keeps its object's publication date
CREATE FUNCTION object_tags_date() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE object_tags SET publication_date = NEW.publication_date WHERE object_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER object_tags_date AFTER UPDATE OF publication_date ON objects
  FOR EACH ROW WHEN (OLD.publication_date IS DISTINCT FROM NEW.publication_date) EXECUTE FUNCTION object_tags_date();

${KEPT_COUNTS}
`



/** Own fields added to OWN_FIELDS after a store was made get their column, as schema.sqlite.ts does. */
export const addOwnFieldColumns = (schema: string): string =>
  OWN_FIELD_NAMES.map((f) => `ALTER TABLE ${schema}.objects ADD COLUMN IF NOT EXISTS ${ownColumn(f)};`).join('\n')

