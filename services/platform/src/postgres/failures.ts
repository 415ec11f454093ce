import { DomainError } from '../errors.js'

/** What a failed database call means for the caller. */
export type FailureKind = 'unreachable' | 'exhausted' | 'timeout' | 'other'

/** Socket errors of a connection that cannot be made or was cut. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED'])

/**
 * SQLSTATEs of a server that cannot serve now: class 08 (connection exception), admin or crash shutdown,
 * starting up or shutting down (57P01–57P03), too many connections (53300), and a read-only transaction
 * (a standby answering for the primary during a failover).
 */
const UNREACHABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '25006'])
/** query_canceled, as statement_timeout cancels; lock_not_available, as lock_timeout ends a wait. */
const TIMEOUT_STATES = new Set(['57014', '55P03'])

/** node-postgres' own messages for a connection that is gone or never came (it gives them no code). */
const UNREACHABLE_MESSAGES = [
  'Connection terminated', 'connection timeout', 'not queryable', 'Cannot use a pool after calling end',
]
/** pg-pool's message when no connection was handed out within connectionTimeoutMillis. */
export const ACQUIRE_TIMEOUT_MESSAGE = 'timeout exceeded when trying to connect'

/**
 * What a driver error means: the database unreachable (or going away), the pool exhausted, a statement
 * past its time, or anything else (a constraint, a syntax error: the caller's to read).
 * `poolFull` tells an acquire timeout of a pool whose every connection was busy from one still connecting.
 */
export function failureKind (err: unknown, poolFull = false): FailureKind {
  if (!(err instanceof Error)) return 'other'
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || code.startsWith('08') || UNREACHABLE_STATES.has(code)) return 'unreachable'
    if (TIMEOUT_STATES.has(code)) return 'timeout'
  }
  if (err.message === 'Query read timeout') return 'timeout'
  if (err.message.includes(ACQUIRE_TIMEOUT_MESSAGE)) return poolFull ? 'exhausted' : 'unreachable'
  if (UNREACHABLE_MESSAGES.some((m) => err.message.includes(m))) return 'unreachable'
  return 'other'
}

export interface FailureContext {
  poolSize: number
  acquireTimeoutMs: number
  statementTimeoutMs: number
  /** the failure came while committing: the write may have been applied */
  committing?: boolean
}

/**
 * The domain error a database failure is answered with (503 for an unreachable database or an exhausted
 * pool, 504 for a statement past its time), or null for a failure the caller interprets.
 */
export function failureError (kind: FailureKind, context: FailureContext): DomainError | null {
  const maybeApplied = context.committing === true ? { maybe_applied: true } : null
  switch (kind) {
    case 'unreachable':
      return new DomainError('SERVICE_UNAVAILABLE', 'the database cannot be reached; try again shortly', { retry_after: 1, ...maybeApplied })
    case 'exhausted':
      return new DomainError('SERVICE_UNAVAILABLE',
        `the database is busy: all ${context.poolSize} connections stayed in use for ${context.acquireTimeoutMs} ms; try again shortly`, { retry_after: 1 })
    case 'timeout':
      return new DomainError('BACKEND_TIMEOUT', `a database statement ran past its ${context.statementTimeoutMs} ms limit`, maybeApplied)
    default:
      return null
  }
}
