import { ObjectListData, type TSchema } from '@content/api-schema'

/** A 2xx answer: an envelope around `data`, or bytes of the given media types. */
export type Success =
  | { status: 200 | 201, data: TSchema, paged?: true, location?: true }
  | { status: 200 | 206, bytes: readonly string[], description: string, headers?: Readonly<Record<string, string>> }
  | { status: 204 }
  | { status: 200, document: true }

export interface Operation {
  summary: string
  tag: string
  /** JSON request body: a TypeBox schema, or a JSON Schema generated from the schema that validates it */
  body?: TSchema | Readonly<Record<string, unknown>>
  /** the request body is file bytes of any type */
  rawBody?: true
  success: readonly Success[]
  /** the caller must present a token (otherwise optional) */
  auth?: true
  /** reads that answer 304 to a matching If-None-Match */
  etag?: true
  /** writes that take an Idempotency-Key (and answer a repeat with Idempotent-Replayed) */
  idempotent?: true
  description?: string
}

export const json = (data: TSchema, extra: { paged?: true } = {}): Success => ({ status: 200, data, ...extra })
export const created = (data: TSchema): Success => ({ status: 201, data, location: true })
export const NO_CONTENT: Success = { status: 204 }
export const HTML = ['text/html']

/** A paginated list of objects, as every list endpoint answers. */
export const list = (summary: string, tag: string, description?: string): Operation =>
  ({ summary, tag, success: [json(ObjectListData, { paged: true })], etag: true, ...(description ? { description } : {}) })
