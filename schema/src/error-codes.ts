/** The gRPC status (google.rpc.Code) an error travels as between the services. */
export type GrpcCode =
  | 'CANCELLED' | 'INVALID_ARGUMENT' | 'UNAUTHENTICATED' | 'PERMISSION_DENIED' | 'NOT_FOUND' | 'ALREADY_EXISTS'
  | 'FAILED_PRECONDITION' | 'OUT_OF_RANGE' | 'RESOURCE_EXHAUSTED' | 'UNAVAILABLE' | 'DEADLINE_EXCEEDED'
  | 'UNIMPLEMENTED' | 'INTERNAL'

interface ErrorCodeEntry {
  /** the HTTP status clients get */
  readonly status: number
  readonly code: string
  /** how a backend raises it (absent: only the gateway answers it) */
  readonly grpc?: GrpcCode
  readonly when: string
}

/**
 * Every error code the API answers with (decisions §2), its HTTP status, the gRPC status a backend
 * raises it with, and when it comes: each decided here once. The error body's schema, the OpenAPI
 * document, the errors page, the table in docs/errors.md and the services' error types come from it.
 */
export const ERROR_CODES = [
  { status: 400, code: 'INVALID_OBJECT_ID', grpc: 'INVALID_ARGUMENT', when: '`{object_id}` is `0` or beyond 2^53−1' },
  { status: 400, code: 'INVALID_PARAMETER', grpc: 'INVALID_ARGUMENT', when: 'a path, query or body parameter of the wrong type or out of range (`page=0`, `width=5000`, a `lang` that is not a language tag, unknown `grant_type`, `{related_id}`/`{child_id}` not a positive integer), a query parameter given more than once or holding U+0000 (`%00`), or an `Idempotency-Key` header that is not 1–255 visible ASCII characters or is sent twice; `details.parameter` names it' },
  { status: 400, code: 'PAGE_SIZE_TOO_LARGE', when: '`page_size` above 100' },
  { status: 400, code: 'UNKNOWN_QUERY_PARAMETER', when: 'a query parameter a read does not accept (the message lists the accepted ones)' },
  { status: 400, code: 'UNKNOWN_PATH_FILTER', when: '`/objects/{id}/{filter}` with a filter name that does not exist (the message lists the valid ones)' },
  { status: 400, code: 'SURPLUS_PATH_SEGMENTS', when: 'more path segments than the endpoint takes' },
  { status: 400, code: 'MALFORMED_REQUEST', when: 'a request fastify or Node\'s HTTP parser cannot take apart (bad percent-encoding in the path, percent-escapes in the path or the query that are not UTF-8, a broken request line), or whose `Host` is absent (HTTP/1.1), sent twice or no `host[:port]`, or whose trusted `X-Forwarded-Host`/`-Proto` makes no URL; `url` is empty when no URL could be parsed. A `%` not followed by two hex digits in the query is read as itself' },
  { status: 400, code: 'MALFORMED_JSON', grpc: 'INVALID_ARGUMENT', when: 'a body that is not JSON or not UTF-8 text (RFC 8259; a leading byte order mark is dropped), or that holds a `__proto__` key or a `constructor` with a `prototype` (refused as fastify refuses them), or a string with an unpaired surrogate escape such as `"\\ud800"`, which is no Unicode text (I-JSON, RFC 7493; a store could keep it only as something else)' },
  { status: 400, code: 'JSON_TOO_DEEP', grpc: 'INVALID_ARGUMENT', when: 'a JSON body nesting arrays and objects deeper than 64 levels (refused before it is parsed)' },
  { status: 400, code: 'MISSING_PARAMETER', grpc: 'INVALID_ARGUMENT', when: 'a required parameter is absent (`username`, `refresh_token`, `data`, …)' },
  { status: 400, code: 'VALIDATION_FAILED', grpc: 'INVALID_ARGUMENT', when: 'a write body breaks a rule (types, dates, days, server-owned fields, unreachable parents or related objects, a section under two parents, cycles), or any of its strings or keys holds U+0000 (`"\\u0000"`: `details.text`; refused on every store, since PostgreSQL cannot keep it)' },
  { status: 400, code: 'TYPE_NOT_WRITABLE', grpc: 'INVALID_ARGUMENT', when: '`"<type> is not writable"`: the type is not in the configured writable list (updates included; the publication, an `area`, is never writable through `POST /objects`)' },
  { status: 400, code: 'UNKNOWN_OBJECT_TYPE', grpc: 'INVALID_ARGUMENT', when: 'an object type that does not exist' },
  { status: 400, code: 'UNKNOWN_RELATION', grpc: 'INVALID_ARGUMENT', when: 'a relation name not valid for the object\'s type' },
  { status: 400, code: 'NOT_A_TREE_NODE', grpc: 'INVALID_ARGUMENT', when: '`children`/`sections`/`contents`/`descendants` of an object that is neither a section nor the publication' },
  { status: 400, code: 'LAST_ADMINISTRATOR', grpc: 'FAILED_PRECONDITION', when: 'admin tool: disabling or deleting the last enabled member of `administrator`' },
  { status: 400, code: 'FIXTURES_INVALID', grpc: 'INVALID_ARGUMENT', when: 'the admin tool\'s fixtures file breaks a rule (nothing was loaded)' },
  { status: 400, code: 'INVALID_FILE_NAME', grpc: 'INVALID_ARGUMENT', when: '`POST /files/{object_type}/{file_name}`: the name is empty, over 255 UTF-8 bytes, or holds `/`, `\\`, `..` or a control character' },
  { status: 400, code: 'UPLOAD_EMPTY', grpc: 'INVALID_ARGUMENT', when: 'an upload without a byte' },
  { status: 400, code: 'IMAGE_TOO_LARGE', grpc: 'INVALID_ARGUMENT', when: 'an image over the pixel limit (50,000,000 by default), read from its header without decoding it; `details` has `pixels` and `max_pixels`' },
  { status: 400, code: 'TYPE_TAKES_NO_FILE', grpc: 'INVALID_ARGUMENT', when: 'an upload for an object type that carries no file (only `image`, `video`, `audio`, `b_e_file` do)' },
  { status: 400, code: 'UPLOAD_TOKEN_INVALID', grpc: 'INVALID_ARGUMENT', when: '`POST /objects` with an `upload_token` that is unknown, expired, already used or another user\'s, or that was uploaded for another object type (`details.upload_token` says which); a refused token stays usable' },
  { status: 400, code: 'MALFORMED_UPLOAD', grpc: 'INVALID_ARGUMENT', when: 'an upload stream that broke the internal protocol (never expected from a client)' },
  { status: 401, code: 'TICKET_INVALID', grpc: 'UNAUTHENTICATED', when: '`GET /changes?ticket=…` with a ticket that is unknown, already used or past its 60 s' },
  { status: 401, code: 'TOKEN_INVALID', grpc: 'UNAUTHENTICATED', when: 'a present access token that is malformed, badly signed, of another algorithm or issuer, or a refresh token used as an access token; on `GET /changes` and `POST /changes/tickets`, a token whose login was revoked or whose user was disabled, or a ticket issued to one' },
  { status: 401, code: 'TOKEN_EXPIRED', grpc: 'UNAUTHENTICATED', when: 'a present access token past its `exp`' },
  { status: 401, code: 'AUTHENTICATION_REQUIRED', grpc: 'UNAUTHENTICATED', when: 'a write, `GET /auth`, `DELETE /auth/…` or `GET /me` without a token' },
  { status: 401, code: 'PREVIEW_TOKEN_INVALID', grpc: 'UNAUTHENTICATED', when: '`GET /objects/{object_id}/preview` with a `token` that is missing, altered, not signed by this deployment or made for another object' },
  { status: 401, code: 'PREVIEW_TOKEN_EXPIRED', grpc: 'UNAUTHENTICATED', when: '`GET /objects/{object_id}/preview` with a `token` past its expiry (`PREVIEW_TTL`); ask `POST /objects/{object_id}/preview` for a new URL' },
  { status: 401, code: 'OBJECT_PROTECTED', grpc: 'UNAUTHENTICATED', when: 'an anonymous read of a protected object' },
  { status: 401, code: 'LOGIN_FAILED', grpc: 'UNAUTHENTICATED', when: 'wrong username or password, or a disabled user (one answer for all)' },
  { status: 401, code: 'REFRESH_TOKEN_INVALID', grpc: 'UNAUTHENTICATED', when: 'an unknown, expired, revoked or reused refresh token' },
  { status: 403, code: 'PERMISSION_DENIED', grpc: 'PERMISSION_DENIED', when: 'the caller lacks the group to read, or the right to write, the object' },
  { status: 403, code: 'ADMINISTRATOR_REQUIRED', grpc: 'PERMISSION_DENIED', when: 'admin tool: the user it logged in as is not in `administrator`' },
  { status: 404, code: 'ENDPOINT_NOT_FOUND', when: 'an unknown endpoint name' },
  { status: 404, code: 'USER_NOT_FOUND', grpc: 'NOT_FOUND', when: 'admin tool: no such user' },
  { status: 404, code: 'API_KEY_NOT_FOUND', grpc: 'NOT_FOUND', when: 'admin tool: no such API key' },
  { status: 404, code: 'WEBHOOK_NOT_FOUND', grpc: 'NOT_FOUND', when: 'admin tool: no such webhook subscription' },
  { status: 404, code: 'DELIVERY_NOT_FOUND', grpc: 'NOT_FOUND', when: 'admin tool: no such webhook delivery' },
  { status: 404, code: 'OBJECT_NOT_FOUND', grpc: 'NOT_FOUND', when: 'the object in the path does not exist or is not visible' },
  { status: 404, code: 'NO_PARENT', grpc: 'NOT_FOUND', when: '`siblings` of an object with no parent (the publication)' },
  { status: 404, code: 'RELATION_NOT_FOUND', grpc: 'NOT_FOUND', when: 'a relation between the two objects does not exist (read, `PUT`, `DELETE`)' },
  { status: 404, code: 'CHILD_NOT_FOUND', grpc: 'NOT_FOUND', when: 'the child is not under the parent (read, `PUT`, `DELETE`)' },
  { status: 404, code: 'REVISION_NOT_FOUND', grpc: 'NOT_FOUND', when: '`/objects/{object_id}/revisions/{revision}`: the object has no revision of that number (never made, or dropped past `REVISIONS_KEEP`)' },
  { status: 404, code: 'FILE_NOT_FOUND', grpc: 'NOT_FOUND', when: '`GET /media/{object_id}/{file_name}`: the object has no file, or not one of that name (any more)' },
  { status: 404, code: 'THUMBNAIL_NOT_FOUND', grpc: 'NOT_FOUND', when: 'a thumbnail URL with a changed size, a bad or missing signature, or whose original is gone' },
  { status: 404, code: 'THUMBNAIL_EXPIRED', grpc: 'NOT_FOUND', when: 'a protected image\'s thumbnail URL past its `expires` (ask `/poster/{id}` again)' },
  { status: 404, code: 'REFRESH_TOKEN_NOT_FOUND', grpc: 'NOT_FOUND', when: '`DELETE /auth/{refresh_token}` of an unknown, malformed, revoked or other user\'s token' },
  { status: 405, code: 'METHOD_NOT_ALLOWED', when: 'a blacklisted endpoint, a path filter not enabled for the method, a method the endpoint lacks, a `CONNECT` (with `Allow`)' },
  { status: 408, code: 'REQUEST_TIMEOUT', when: 'the request line and headers did not arrive within 20 s, or a body stopped arriving for the idle timeout (60 s) before it was complete; the connection closes' },
  { status: 409, code: 'USER_EXISTS', grpc: 'ALREADY_EXISTS', when: 'admin tool: the username is taken' },
  { status: 409, code: 'GROUP_EXISTS', grpc: 'ALREADY_EXISTS', when: 'admin tool: the group name is taken' },
  { status: 409, code: 'NICKNAME_TAKEN', grpc: 'ALREADY_EXISTS', when: 'an explicitly given nickname already in use' },
  { status: 409, code: 'PARENT_GONE', grpc: 'FAILED_PRECONDITION', when: '`POST /trash/{object_id}/restore` of an object none of whose parents exists any more (trashed or purged): restore a parent first, or send `data.parents`; `details.parents` names the missing ones' },
  { status: 413, code: 'PAYLOAD_TOO_LARGE', when: 'a body over the configured limit (1 MiB by default)' },
  { status: 413, code: 'UPLOAD_MAX_FILESIZE_EXCEEDED', grpc: 'INVALID_ARGUMENT', when: 'an upload over `UPLOAD_MAX_BYTES` (25 MiB by default): answered as soon as the declared length or the bytes received pass it, and the connection is closed' },
  { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', when: 'a write body that is neither `application/json` nor `text/plain`, or that declares a `charset` other than UTF-8 (or US-ASCII), or any write body (an upload\'s too) sent with a `Content-Encoding` other than `identity`: bodies are read as sent, never decoded (the answer carries `Accept-Encoding: identity`)' },
  { status: 415, code: 'UPLOAD_TYPE_INVALID', grpc: 'INVALID_ARGUMENT', when: 'an upload without `Content-Type`, of a type the object type does not take, whose bytes are not what `Content-Type` claims (a JPEG sent as `image/png`), or an image that does not decode' },
  { status: 416, code: 'RANGE_NOT_SATISFIABLE', grpc: 'OUT_OF_RANGE', when: 'a `Range` of an original that starts past its end (with `Content-Range: bytes */<size>`)' },
  { status: 417, code: 'EXPECTATION_FAILED', when: 'an `Expect` header other than `100-continue`; the connection closes' },
  { status: 422, code: 'IDEMPOTENCY_KEY_REUSED', grpc: 'FAILED_PRECONDITION', when: 'a `POST` write with an `Idempotency-Key` the same user sent within 24 h with another request (method, path or body); nothing was written' },
  { status: 429, code: 'TOO_MANY_REQUESTS', grpc: 'RESOURCE_EXHAUSTED', when: 'repeated login failures for one client and username (with `Retry-After`); a caller past `LIVE_MAX_STREAMS_PER_CALLER` live streams' },
  { status: 431, code: 'HEADERS_TOO_LARGE', when: 'the request line and headers exceed Node\'s limit (16 KiB); `url` is empty' },
  { status: 499, code: 'REQUEST_CANCELLED', grpc: 'CANCELLED', when: 'the client went away before the answer (seen in logs only)' },
  { status: 500, code: 'INTERNAL_ERROR', when: 'a fault of ours; the message is generic and the log has the request id' },
  { status: 500, code: 'ANSWER_TOO_LARGE', when: 'an answer larger than the services carry between them (256 MiB): ask for fewer or smaller objects (`page_size`, `include_limit`, `fields`); the log says which call and how large' },
  { status: 501, code: 'NOT_IMPLEMENTED', grpc: 'UNIMPLEMENTED', when: 'a backend method this version does not offer (never answered by the endpoints of the specification)' },
  { status: 503, code: 'SERVICE_UNAVAILABLE', grpc: 'UNAVAILABLE', when: 'a backend or Redis cannot answer (refresh and revoke fail closed), the SQLite store stayed locked past 5 s, the gateway is shutting down, or a gateway has `LIVE_MAX_STREAMS` live streams open (with `Retry-After`); on a write that reached the backend, `details.maybe_applied` is `true`: it may have been applied' },
  { status: 503, code: 'THUMBNAIL_BUSY', grpc: 'UNAVAILABLE', when: 'thumbnail rendering is saturated (renders at the concurrency limit and the queue full): try again after `Retry-After` seconds' },
  { status: 503, code: 'UPLOAD_BUSY', grpc: 'UNAVAILABLE', when: 'too many uploads at once: try again after `Retry-After` seconds' },
  { status: 504, code: 'BACKEND_TIMEOUT', grpc: 'DEADLINE_EXCEEDED', when: 'a backend missed its deadline; on a write, `details.maybe_applied` is `true`: it may have been applied (retry with the same `Idempotency-Key`, or read to check)' },
] as const satisfies readonly ErrorCodeEntry[]

export type ErrorCode = typeof ERROR_CODES[number]['code']
/** The codes a backend raises: those with a gRPC status. */
export type BackendErrorCode = Extract<typeof ERROR_CODES[number], { grpc: GrpcCode }>['code']

const BY_CODE: ReadonlyMap<string, ErrorCodeEntry> = new Map(ERROR_CODES.map((e) => [e.code, e]))

export const isErrorCode = (code: string): code is ErrorCode => BY_CODE.has(code)
export const isBackendErrorCode = (code: string): code is BackendErrorCode => BY_CODE.get(code)?.grpc !== undefined

/** The HTTP status of a code. */
export const httpStatusOf = (code: ErrorCode): number => (BY_CODE.get(code) as ErrorCodeEntry).status

/** The gRPC status a backend raises a code with. */
export const grpcCodeOf = (code: BackendErrorCode): GrpcCode => (BY_CODE.get(code) as Required<ErrorCodeEntry>).grpc

/** The Markdown table of docs/errors.md: one row per code, in catalogue order. */
export function errorCodesTable (): string {
  const rows = ERROR_CODES.map((e) => `| ${e.status} | \`${e.code}\` | ${e.when} |`)
  return `${['| status | code | when |', '|---|---|---|', ...rows].join('\n')}\n`
}
