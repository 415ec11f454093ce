import { closeSync, fdatasync, openSync } from 'node:fs'
import type Database from 'better-sqlite3'

/** The store's group commit: commits are counted as they happen, `sync` resolves once those before it are on disk. */
export interface GroupCommit {
  /** a transaction just committed (not yet flushed) */
  committed(): void
  /** resolves once every commit counted before the call is on disk; at once when none is pending */
  sync(): Promise<void>
}

/**
 * Group commit for the store's connection. With `synchronous = FULL` SQLite flushes the WAL inside every
 * COMMIT, on the service's one thread: the flush, with the event loop blocked, was most of a write's
 * time and bounded creates to a few hundred a second (loadtest/README.md, "Writes: group commit"). Instead the connection commits with
 * `synchronous = NORMAL` (the WAL is written, not flushed; checkpoints and WAL resets are still synced,
 * so the file stays consistent) and the objects service sends no answer before an `fdatasync` of the WAL,
 * run on libuv's thread pool, covers every commit made before the answer was computed (server.ts). One
 * flush covers every commit made before it began, so concurrent writes share it and the thread keeps
 * serving meanwhile. A 2xx still means the write is on disk, as with FULL, and no read shows data that
 * is not. A store that is not a WAL file (`:memory:`) has nothing to flush.
 */
export function walSync (db: Database.Database, file: string): GroupCommit & { close(): void } {
  const mode = String(db.pragma('journal_mode', { simple: true })).toLowerCase()
  if (file === ':memory:' || mode !== 'wal') return { committed: () => {}, sync: () => Promise.resolve(), close: () => {} }
  db.pragma('synchronous = NORMAL')
  let fd: number | undefined
  const flush = (): Promise<void> => new Promise((resolve, reject) => {
    // the WAL exists once anything was written; SQLite keeps the file (and so this descriptor's inode) while its connection is open
    fd ??= openSync(`${file}-wal`, 'r')
    fdatasync(fd, (err) => { if (err) reject(err); else resolve() })
  })
  return { ...groupCommit(flush), close: () => { if (fd !== undefined) closeSync(fd) } }
}

const ignore = () => {}

/**
 * At most one flush runs. A caller whose commits the running flush covers (it began after them) waits
 * for it; one whose commits came after it began shares the next, which starts when the running one ends.
 */
export function groupCommit (flush: () => Promise<void>): GroupCommit {
  let commits = 0
  let durableUpTo = 0
  let running: { covers: number, done: Promise<void> } | null = null
  let next: Promise<void> | null = null
  const start = (): Promise<void> => {
    const covers = commits
    const done = flush().then(() => { durableUpTo = Math.max(durableUpTo, covers) })
    const entry = { covers, done }
    running = entry
    const clear = () => { if (running === entry) running = null }
    done.then(clear, clear)
    return done
  }
  return {
    committed: () => { commits++ },
    sync: () => {
      const target = commits
      if (durableUpTo >= target) return Promise.resolve()
      if (!running) return start()
      if (running.covers >= target) return running.done
      next ??= running.done.then(ignore, ignore).then(() => {
        next = null
        return start()
      })
      return next
    },
  }
}
