import {
  ChildPriorityBody, ChildrenBody, ListingData, LoginBody, MeData, ObjectData, ObjectListData, ObjectWriteBody, PosterData,
  PriorityData, RelatedListData, RelationData, RelationReplaceBody, RelationSummaryData, RelationsBody, SavedChildrenData,
  SavedRelationsData, TokenData, TokenStatusData, UploadData, type TSchema,
} from '@content/api-schema'
import type { HandlerKey } from '../routing/resolve.js'

/** A 2xx answer: an envelope around `data`, or bytes of the given media types. */
export type Success =
  | { status: 200 | 201, data: TSchema, paged?: true, location?: true }
  | { status: 200 | 206, bytes: readonly string[], description: string }
  | { status: 204 }
  | { status: 200, document: true }

export interface Operation {
  summary: string
  tag: string
  /** JSON request body */
  body?: TSchema
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

const json = (data: TSchema, extra: { paged?: true } = {}): Success => ({ status: 200, data, ...extra })
const created = (data: TSchema): Success => ({ status: 201, data, location: true })
const NO_CONTENT: Success = { status: 204 }
const HTML = ['text/html']

const list = (summary: string, tag: string, description?: string): Operation =>
  ({ summary, tag, success: [json(ObjectListData, { paged: true })], etag: true, ...(description ? { description } : {}) })

/** What each handler takes and answers: the source of the OpenAPI document's operations. */
export const OPERATIONS: Readonly<Record<HandlerKey, Operation>> = {
  'listing': { summary: 'Available endpoints', tag: 'API', success: [json(ListingData)], etag: true },
  'auth.login': {
    summary: 'Log in or refresh a token', tag: 'Auth', body: LoginBody, success: [json(TokenData)],
    description: 'The password grant (default) answers a new token pair; the refresh grant trades a refresh token for a new pair, once.',
  },
  'auth.status': { summary: 'The presented access token and its remaining lifetime', tag: 'Auth', auth: true, success: [json(TokenStatusData)] },
  'auth.revoke': { summary: 'Revoke a refresh token', tag: 'Auth', auth: true, success: [NO_CONTENT] },
  'me': { summary: 'The logged-in user (and card object)', tag: 'Auth', auth: true, success: [json(MeData)], etag: true },
  'poster': {
    summary: 'The thumbnail of an object', tag: 'Media', success: [json(PosterData)], etag: true,
    description: 'The image of the object itself, else its first `poster`, then `attach` related image, else a placeholder; `uri` is a signed thumbnail URL at the asked size.',
  },
  'objects.list': list('Objects of the publication', 'Objects', 'Every object below the publication the caller may see, paginated.'),
  'objects.get': { summary: 'One object, by id or nickname', tag: 'Objects', success: [json(ObjectData)], etag: true },
  'objects.save': {
    summary: 'Create or update an object', tag: 'Objects', auth: true, body: ObjectWriteBody, idempotent: true,
    success: [json(ObjectData), created(ObjectData)],
    description: 'Without `id`: creates (201, `object_type` and `parents` or `relations` required). With `id`: updates the fields sent (200). `upload_token` attaches an uploaded file.',
  },
  'objects.delete': { summary: 'Delete an object', tag: 'Objects', auth: true, success: [NO_CONTENT] },
  'type.list': list('Objects of one type', 'Objects'),
  'type.get': { summary: 'One object of this type', tag: 'Objects', success: [json(ObjectData)], etag: true },
  'tree.list': list('Objects on the tree around an object', 'Tree'),
  'children.get': { summary: 'The priority of a child', tag: 'Tree', success: [json(PriorityData)], etag: true },
  'children.save': { summary: 'Add or move children', tag: 'Tree', auth: true, body: ChildrenBody, idempotent: true, success: [json(SavedChildrenData), created(SavedChildrenData)] },
  'children.update': { summary: 'Change the priority of a child', tag: 'Tree', auth: true, body: ChildPriorityBody, success: [json(PriorityData)] },
  'children.remove': { summary: 'Remove a child from its parent', tag: 'Tree', auth: true, success: [NO_CONTENT] },
  'relations.summary': { summary: 'Relation names with counts', tag: 'Relations', success: [json(RelationSummaryData)], etag: true },
  'relations.list': { summary: 'Objects related by one relation', tag: 'Relations', success: [json(RelatedListData, { paged: true })], etag: true },
  'relations.get': { summary: 'Priority and params of one relation', tag: 'Relations', success: [json(RelationData)], etag: true },
  'relations.save': { summary: 'Relate objects', tag: 'Relations', auth: true, body: RelationsBody, idempotent: true, success: [json(SavedRelationsData), created(SavedRelationsData)] },
  'relations.replace': { summary: 'Replace priority and params of a relation', tag: 'Relations', auth: true, body: RelationReplaceBody, success: [json(RelationData)] },
  'relations.delete': { summary: 'Remove a relation', tag: 'Relations', auth: true, success: [NO_CONTENT] },
  'custom': { summary: 'Custom endpoint', tag: 'Custom', success: [json({} as TSchema)], description: 'A module of this deployment; it answers under any further path segments.' },
  'files.upload': {
    summary: 'Upload a file (first step of a media write)', tag: 'Media', auth: true, rawBody: true, success: [json(UploadData)],
    description: 'The raw body is the file, sent with its `Content-Type`. The answer\'s `upload_token` goes into `data.upload_token` of `POST /objects`.',
  },
  'media.original': {
    summary: 'The original file of a media object', tag: 'Media', etag: true,
    success: [{ status: 200, bytes: ['*/*'], description: 'the file' }, { status: 206, bytes: ['*/*'], description: 'the requested byte range' }],
  },
  'media.thumbnail': {
    summary: 'A signed thumbnail', tag: 'Media', etag: true,
    success: [{ status: 200, bytes: ['image/jpeg', 'image/png'], description: 'the thumbnail' }],
    description: 'URLs come from `GET /poster/{object_id}`; any change to them is a 404.',
  },
  'docs.openapi': { summary: 'This document', tag: 'API', success: [{ status: 200, document: true }], etag: true },
  'docs.page': { summary: 'The reference page of this document', tag: 'API', success: [{ status: 200, bytes: HTML, description: 'HTML' }], etag: true },
  'docs.errors': { summary: 'Every error code', tag: 'API', success: [{ status: 200, bytes: HTML, description: 'HTML' }], etag: true },
  'docs.asset': { summary: 'Scripts, styles and icon of the reference page', tag: 'API', success: [{ status: 200, bytes: ['text/css', 'text/javascript', 'image/png'], description: 'the file' }], etag: true },
}
