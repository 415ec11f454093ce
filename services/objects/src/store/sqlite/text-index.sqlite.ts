import Database from 'better-sqlite3'
import { SEARCHED_FIELDS, indexable } from '../../core/text-search.js'

/** The indexed columns: the searched fields, in order. */
const COLUMNS = SEARCHED_FIELDS.join(', ')
/** The FTS5 column filter of a MATCH over all of them. */
export const SEARCHED_COLUMNS = `{${SEARCHED_FIELDS.join(' ')}}`

/** A new object's text waits in `text_pending` for the indexer (text-indexer.sqlite.ts). */
const INSERT_TRIGGER = `CREATE TRIGGER IF NOT EXISTS objects_text_insert AFTER INSERT ON objects BEGIN
  INSERT INTO text_pending (id) VALUES (new.id);
END;`
/** Takes an object's indexed text out of the index: only when it is there, not still pending. */
const UNINDEX_OLD = `INSERT INTO objects_fts (objects_fts, rowid, ${COLUMNS})
    SELECT 'delete', old.id, ${SEARCHED_FIELDS.map((f) => `old.${f}`).join(', ')} WHERE NOT EXISTS (SELECT 1 FROM text_pending WHERE id = old.id);`
/**
 * `objects_fts`: an FTS5 trigram index over the searched fields (title, description, body), external content (the text
 * stays in `objects` only). Searches use it to narrow the candidates; `ci_contains` stays the exact
 * check on them. The triggers keep it in step within each write's transaction, except that new text
 * (a created object, a changed searched field) is not indexed there: its id goes into
 * `text_pending`, which searches take as candidates beside the index's, and the indexer moves a batch of
 * them into the index in a later transaction of its own. Indexed one write at a time, a create's text
 * was a large part of its CPU in the objects service (an FTS5 segment flushed and merged per commit, most
 * of its WAL pages); indexed in batches it costs a fraction of that (loadtest/README.md, "Text indexed
 * in batches").
 */
const TEXT_INDEX = `
CREATE VIRTUAL TABLE IF NOT EXISTS objects_fts USING fts5(
  ${COLUMNS}, content='objects', content_rowid='id', tokenize='trigram');
CREATE TABLE IF NOT EXISTS text_pending (id INTEGER PRIMARY KEY);
${INSERT_TRIGGER}
CREATE TRIGGER IF NOT EXISTS objects_text_delete AFTER DELETE ON objects BEGIN
  ${UNINDEX_OLD}
  DELETE FROM text_pending WHERE id = old.id;
END;
CREATE TRIGGER IF NOT EXISTS objects_text_update AFTER UPDATE OF ${COLUMNS} ON objects BEGIN
  ${UNINDEX_OLD}
  INSERT OR IGNORE INTO text_pending (id) VALUES (new.id);
END;
`
const PARTS = ['objects_fts', 'text_pending', 'objects_text_insert', 'objects_text_delete', 'objects_text_update']
/** The triggers of stores from before `text_pending`, which indexed within each write. */
const OLD_TRIGGERS = ['objects_fts_insert', 'objects_fts_delete', 'objects_fts_update']

/**
 * The ids of the objects whose text may hold what `match` (an FTS5 MATCH parameter) looks for: the
 * index's candidates and the text not indexed yet.
 */
export const textCandidatesSql = (match: string): string =>
  `SELECT rowid AS id FROM objects_fts WHERE objects_fts MATCH ${match} UNION ALL SELECT id FROM text_pending`

/**
 * FTS5 writes the terms a transaction adds as a new segment each time they fill this much memory (1 MiB
 * by default). A bulk import's million documents then made many small segments and merged them as they
 * came: 8 MiB made fewer segments and took a good part off indexing them, and 32 MiB did no better
 * (loadtest/README.md, "At scale"). A write of one object fills far less, so it is unchanged. Kept in the index's
 * own configuration (`objects_fts_config`).
 */
export const TEXT_INDEX_HASH_BYTES = 8 * 1024 * 1024

/**
 * Creates the index, its pending texts and its triggers when a part is missing (a store from before
 * them), filling a new index once, and replaces the triggers of a store from before `text_pending`;
 * sets the index's hash size when it is not the one above.
 */
export function ensureTextIndex (db: Database.Database): void {
  const names = [...PARTS, ...OLD_TRIGGERS]
  const present = new Set(db.prepare(`SELECT name FROM sqlite_master WHERE name IN (${names.map(() => '?').join(', ')})`).pluck().all(...names))
  // measured here, at start, rather than by the first search that needs it
  unfoldedLowerCase()
  if (PARTS.some((part) => !present.has(part)) || OLD_TRIGGERS.some((old) => present.has(old))) {
    db.transaction(() => {
      // the old triggers kept an existing index in step: it needs only the new ones
      for (const old of OLD_TRIGGERS) db.exec(`DROP TRIGGER IF EXISTS ${old}`)
      db.exec(TEXT_INDEX)
      if (!present.has('objects_fts')) {
        db.exec("INSERT INTO objects_fts (objects_fts) VALUES ('rebuild')")
        db.exec('DELETE FROM text_pending')
      }
    })()
  }
  const hash = db.prepare("SELECT v FROM objects_fts_config WHERE k = 'hashsize'").pluck().get()
  // FTS5 takes configuration values as SQL integer literals only (a bound number arrives as a real)
  if (hash !== TEXT_INDEX_HASH_BYTES) db.exec(`INSERT INTO objects_fts (objects_fts, rank) VALUES ('hashsize', ${TEXT_INDEX_HASH_BYTES})`)
}

/**
 * The FTS5 MATCH text that narrows a search for `needle` (lower-cased) without ever dropping a true
 * match, or null when the index cannot promise that and the search must scan:
 * - fewer than 3 code points: no trigram to look up (see text-search.ts);
 * - U+0000: FTS5's query parser stops at it;
 * - U+0307 (combining dot above), or a character the tokenizer folds differently from JS
 *   toLowerCase (see unfoldedLowerCase): the folded text would not contain the folded needle.
 * 'İ' lower-cases to 'i' + U+0307 in JS but folds to itself here: a needle ending in 'i' may end on
 * that 'i', so the last character is left out of the phrase (any other 'i' is followed by a character
 * that is not U+0307). Sigma (Σ σ ς) and ẞ/ß fold alike; diacritics are kept (remove_diacritics 0).
 * The needle becomes one FTS5 string (a phrase, `"` doubled), so operators in it are plain text.
 */
export function ftsPhrase (needle: string): string | null {
  if (needle.includes('\u0000') || needle.includes('\u0307')) return null
  const unsafe = unfoldedLowerCase()
  if (Array.from(needle).some((c) => unsafe.has(c))) return null
  const phrase = needle.endsWith('i') ? needle.slice(0, -1) : needle
  return indexable(phrase) ? `"${phrase.replaceAll('"', '""')}"` : null
}

let unfolded: Set<string> | undefined

/**
 * The lower-case letters X for which some C with C.toLowerCase() === X folds, in this SQLite build's
 * trigram tokenizer, to something other than X does: newer scripts than its Unicode tables (Cherokee,
 * Georgian Mtavruli, Osage, …, 445 letters with SQLite 3.53 and Node 20's Unicode 17). Measured once per
 * process against the bundled SQLite and this Node's case mapping, so an upgrade of either keeps it true.
 */
export function unfoldedLowerCase (): Set<string> {
  if (unfolded) return unfolded
  const pairs: [number, string][] = []
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue
    const c = String.fromCodePoint(cp)
    const lower = c.toLowerCase()
    if (lower !== c && Array.from(lower).length === 1) pairs.push([cp, lower])
  }
  const db = new Database(':memory:')
  try {
    db.exec("CREATE VIRTUAL TABLE probe USING fts5(x, tokenize='trigram')")
    const insert = db.prepare('INSERT INTO probe (rowid, x) VALUES (?, ?)')
    db.transaction(() => { for (const [cp] of pairs) insert.run(cp, String.fromCodePoint(cp).repeat(3)) })()
    const hit = db.prepare('SELECT 1 FROM probe WHERE probe MATCH ? AND rowid = ?')
    unfolded = new Set(pairs.filter(([cp, lower]) => hit.get(`"${lower.repeat(3)}"`, cp) === undefined).map(([, lower]) => lower))
  } finally {
    db.close()
  }
  return unfolded
}
