/** What an adapter is opened with. */
export interface StoreOptions {
  publicationNickname: string
  /** REVISIONS_KEEP: revisions kept per object (null or absent: all; 0: none) */
  revisionsKeep?: number | null
  now?: () => number
  /** SQLite only: its page cache, MiB (schema.sqlite.ts, applyPragmas) */
  sqliteCacheMb?: number
  /** SQLite only: a failed run of the text index's background work (text-merge.sqlite.ts, text-indexer.sqlite.ts), and what failed */
  onBackgroundError?: (err: unknown, what: string) => void
}

