import type { ChangeStream, Db, Document, ServerSessionId } from 'mongodb'
import { WATCHED_COLLECTIONS } from './schema.mongo.js'

/** The parts of a change event this watcher reads (the pipeline projects the rest away). */
interface ChangeMeta {
  _id: unknown
  operationType: string
  /** present on events of multi-document transactions */
  lsid?: ServerSessionId
  txnNumber?: number
}

export interface ChangeWatcherOptions {
  /** whether a server session is one of this process's (its writes were announced at commit) */
  isOwn: (sessionKey: string) => boolean
  /** another process changed the database, or events may have been missed */
  onChange: () => void
  onError: (err: unknown) => void
  retryMs?: { first: number, max: number }
}

export const sessionKey = (id: ServerSessionId | undefined): string => (id ? id.id.toString('hex') : '')

/**
 * The events that concern reads: writes to this service's own collections (pending uploads and other
 * services' collections in the same database, such as the poster's GridFS buckets, are left out),
 * plus the events that carry no collection: a dropped database and the stream's invalidation.
 */
export function watchPipeline (collections: readonly string[] = WATCHED_COLLECTIONS): Document[] {
  return [
    {
      $match: {
        $or: [
          { 'ns.coll': { $in: [...collections] } },
          { 'to.coll': { $in: [...collections] } }, // a collection renamed into one of ours
          { operationType: { $in: ['invalidate', 'dropDatabase'] } },
        ],
      },
    },
    { $project: { operationType: 1, lsid: 1, txnNumber: 1 } },
  ]
}

/**
 * Watches the database so that writes made by other replicas of the service bump this one's change
 * feed (and with it the gateway's caches). A transaction shows up as one event per document; they
 * arrive together and count once. A failed stream is logged and reopened with backoff from "now",
 * with one bump for whatever happened while it was down.
 */
export class ChangeWatcher {
  private stream: ChangeStream<Document, ChangeMeta> | null = null
  private timer: NodeJS.Timeout | null = null
  private closed = false
  private lastTxn = ''
  private readonly first: number
  private readonly max: number
  private delay: number

  constructor (private readonly db: Db, private readonly options: ChangeWatcherOptions) {
    this.first = options.retryMs?.first ?? 1_000
    this.max = options.retryMs?.max ?? 30_000
    this.delay = this.first
  }

  start (): void {
    if (this.closed || this.stream) return
    const stream = this.db.watch<Document, ChangeMeta>(watchPipeline())
    this.stream = stream
    stream.on('change', (event) => this.handle(stream, event))
    // A token arrives with every batch, empty ones included: the stream is healthy again.
    stream.on('resumeTokenChanged', () => { this.delay = this.first })
    stream.on('error', (err) => {
      this.options.onError(err)
      this.restart(stream)
    })
  }

  private handle (stream: ChangeStream<Document, ChangeMeta>, event: ChangeMeta): void {
    if (event.operationType === 'invalidate') { // the database was dropped: the stream has ended
      this.options.onChange()
      this.restart(stream)
      return
    }
    const key = sessionKey(event.lsid)
    if (key !== '' && this.options.isOwn(key)) return
    const txn = key === '' ? '' : `${key}:${String(event.txnNumber)}`
    if (txn !== '' && txn === this.lastTxn) return
    this.lastTxn = txn
    this.options.onChange()
  }

  private restart (stream: ChangeStream<Document, ChangeMeta>): void {
    if (this.stream !== stream) return
    this.stream = null
    stream.close().catch(() => { /* already closed */ })
    if (this.closed) return
    const delay = this.delay
    this.delay = Math.min(this.delay * 2, this.max)
    this.timer = setTimeout(() => {
      this.timer = null
      this.options.onChange()
      this.start()
    }, delay)
    this.timer.unref()
  }

  async close (): Promise<void> {
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    const stream = this.stream
    this.stream = null
    await stream?.close()
  }
}
