import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { ERROR_CODES, type ErrorCode } from './error-codes.js'
import { ref } from './refs.js'

/** Decisions §3: the paging object of every list. */
export const Paging = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, description: 'absent with cursor paging' })),
  page_size: Type.Integer({ minimum: 1, maximum: 100 }),
  page_count: Type.Integer({ minimum: 0, description: 'items on this page' }),
  total: Type.Optional(Type.Integer({ minimum: 0, description: 'absent with count=none' })),
  total_pages: Type.Optional(Type.Integer({ minimum: 0, description: 'absent with count=none and with cursor paging' })),
  next_cursor: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'cursor paging (decisions §15): the next page\'s cursor, null on the last page' })),
}, { additionalProperties: false })
export type Paging = Static<typeof Paging>

/** Decisions §1: every 2xx JSON answer, `data` of each endpoint's own shape. */
export const Envelope = <T extends TSchema>(data: T, paged = false) => Type.Object({
  api: Type.String({ description: 'the endpoint name' }),
  data,
  method: Type.String({ description: 'the request method, lower case' }),
  params: Type.Union([Type.Record(Type.String(), Type.String()), Type.Array(Type.Never(), { maxItems: 0 })], {
    description: 'the query parameters as sent (never access_token); [] when there are none',
  }),
  url: Type.String({ format: 'uri', description: 'the request URL without its query' }),
  ...(paged ? { paging: ref('Paging', Paging) } : {}),
}, { additionalProperties: false })

export interface Envelope<T> {
  api: string
  data: T
  method: string
  params: Record<string, string> | []
  url: string
  paging?: Paging
}

export const ErrorCodeSchema = Type.Unsafe<ErrorCode>({ type: 'string', enum: ERROR_CODES.map((e) => e.code) })

/** Decisions §2: every non-2xx answer, and nothing else. */
export const ErrorBody = Type.Object({
  error: Type.Object({
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    code: ref('ErrorCode', ErrorCodeSchema),
    message: Type.String(),
    details: Type.Union([Type.String(), Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    more_info: Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: 'the code\'s entry on the errors page' }),
    url: Type.String({ description: 'the request URL without its query; empty when none could be parsed' }),
  }, { additionalProperties: false }),
}, { additionalProperties: false })
export type ErrorBody = Static<typeof ErrorBody>
