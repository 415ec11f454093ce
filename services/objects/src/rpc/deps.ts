import type { Logger, RpcServerOptions } from '@content/platform'
import type { ChangeFeed } from '../core/change-feed.js'
import type { PreviewSettings } from '../core/preview.js'
import type { ReadDeps } from '../core/read-context.js'
import type { ObjectsStore } from '../core/ports.js'

export interface ObjectsServerDeps {
  log: Logger
  /** server settings (maximum connection age) */
  rpc: Pick<RpcServerOptions, 'maxConnectionAgeMs' | 'identity'>
  store: ObjectsStore
  feed: ChangeFeed
  reads: ReadDeps
  writerGroups: string[]
  now: () => number
  /** UPLOAD_TOKEN_TTL: how long an upload waits for the write that attaches it */
  uploadTtlMs: number
  /** preview links (decisions §16): their key and PREVIEW_TTL */
  preview: PreviewSettings
  /** a subscription was added or a delivery queued again: deliver soon */
  webhooksAdded?: () => void
}
