import type { Logger } from '@content/platform'
import type { JwtAlgorithm } from '../core/access-claims.js'
import type { AccountsStore } from '../store/accounts.store.js'
import type { TokensStore } from '../store/tokens.store.js'
import type { TicketsStore } from '../store/tickets.store.js'
import type { FailureLimiter } from './login-limiter.js'

/** The token settings sessions and API keys run with (config.ts reads them). */
export interface SessionSettings {
  secret: Uint8Array
  /** the HMAC key of preview URLs' tokens (platform's previewKey of SERVICE_SECRET) */
  previewKey: Buffer
  issuer: string
  algorithm: JwtAlgorithm
  accessTtlSeconds: number
  refreshTtlSeconds: number
  rotation: boolean
  graceSeconds: number
  maxFailures: number
  failureWindowSeconds: number
}

/** What every request path stands on: made once per process, with its state, by the composition root. */
export interface ServiceDeps {
  accounts: AccountsStore
  tokens: TokensStore
  /** live-stream tickets (decisions §17); absent: none are issued (SERVICE_UNAVAILABLE) */
  tickets?: TicketsStore
  settings: SessionSettings
  /** the session flows' log (their lines carry `component: 'sessions'`) */
  log: Logger
  now: () => number
  /** failed logins: counted in this process's memory, or by every replica through Redis */
  limiter: FailureLimiter
  /** verified against for unknown usernames, so timing does not reveal which exist */
  dummyHash: Promise<string>
}
