import type { ErrorCode } from './types.js'

/** `code` of an answer that did not carry the error body of the API (a proxy's page, a cut connection). */
export type TransportErrorCode = 'UNEXPECTED_RESPONSE'

/** Every non-2xx answer: the error body's fields, typed. */
export class ApiError extends Error {
  override readonly name = 'ApiError'
  readonly status: number
  readonly code: ErrorCode | TransportErrorCode
  readonly details: string | Record<string, unknown> | null
  readonly moreInfo: string | null
  readonly url: string

  constructor (fields: { status: number, code: ErrorCode | TransportErrorCode, message: string, details?: string | Record<string, unknown> | null, moreInfo?: string | null, url?: string }) {
    super(fields.message)
    this.status = fields.status
    this.code = fields.code
    this.details = fields.details ?? null
    this.moreInfo = fields.moreInfo ?? null
    this.url = fields.url ?? ''
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The ApiError of an answer's status and body text. A body that is not the API's error body (whatever
 * stood between client and server) still gives an ApiError, with `UNEXPECTED_RESPONSE`.
 */
export function errorOf (status: number, text: string, requestUrl: string): ApiError {
  let body: unknown
  try { body = JSON.parse(text) } catch { body = undefined }
  const error = isRecord(body) ? body.error : undefined
  if (isRecord(error) && typeof error.code === 'string' && typeof error.message === 'string') {
    const details = typeof error.details === 'string' || isRecord(error.details) ? error.details : null
    return new ApiError({
      status,
      code: error.code as ErrorCode,
      message: error.message,
      details,
      moreInfo: typeof error.more_info === 'string' ? error.more_info : null,
      url: typeof error.url === 'string' ? error.url : requestUrl,
    })
  }
  return new ApiError({ status, code: 'UNEXPECTED_RESPONSE', message: `HTTP ${status} without the API's error body`, details: text.slice(0, 500) || null, url: requestUrl })
}
