import type { Readable } from 'node:stream'

/** What a store keeps about an original beside its bytes. */
export interface OriginalInfo {
  mime_type: string
}

export interface StoredOriginal {
  key: string
  size: number
  /** ms since the epoch the key was last stored (or stored again) */
  used: number
}

/** An inclusive byte range. */
export interface ByteSpan {
  start: number
  end: number
}

/**
 * Originals, content-addressed by the SHA-256 of their bytes: stored once, never changed, removed only
 * when idle (the collector asks the objects service first).
 */
export interface OriginalsPort {
  /** Where uploads are staged before `put`: a directory on the same file system as the store, when it has one. */
  readonly stagingDir: string
  /**
   * Stores the staged file under `key` unless the key is present; either way marks the key as used now.
   * Durable when it resolves. The staged file may be moved; the caller removes whatever is left.
   */
  put(key: string, stagedPath: string, info: OriginalInfo): Promise<'stored' | 'present'>
  stat(key: string): Promise<StoredOriginal | null>
  /** The bytes (or one span of them), or null when the key is not stored. */
  open(key: string, span?: ByteSpan): Promise<Readable | null>
  /** A file path for decoders, when the adapter keeps files; otherwise the bytes are read with `open`. */
  path?(key: string): Promise<string | null>
  /** Keys not used since `before` (ms), after `afterKey`, in key order, at most `limit`. */
  idle(before: number, afterKey: string, limit: number): Promise<string[]>
  /**
   * Removes the key if it is still unused since `before`. Atomic with respect to `put` of the same key:
   * a key stored again meanwhile survives. Resolves whether it was removed.
   */
  removeIfIdle(key: string, before: number): Promise<boolean>
}

/**
 * Rendered thumbnails by store name (`{key}-{w}x{h}.{ext}`): a cache bounded in bytes, least recently
 * used first out. Losing one costs a render, never a wrong answer.
 */
export interface ThumbnailsPort {
  get(name: string): Promise<Buffer | null>
  put(name: string, originalKey: string, bytes: Buffer): Promise<void>
  /** Removes every thumbnail of an original; resolves how many. */
  removeFor(originalKey: string): Promise<number>
}

export interface MediaStore {
  readonly originals: OriginalsPort
  readonly thumbnails: ThumbnailsPort
  close(): Promise<void>
}

/** Guards the adapters: a key that is not a content address never reaches a path or a query. */
export function assertKey (key: string): void {
  if (!/^[0-9a-f]{64}$/.test(key)) throw new Error('not a content key')
}

/** Guards the adapters: thumbnail names are plain file names. */
export function assertName (name: string): void {
  if (!/^[0-9a-z]+-[0-9]+x[0-9]+\.(jpg|png)$/.test(name)) throw new Error('not a thumbnail name')
}
