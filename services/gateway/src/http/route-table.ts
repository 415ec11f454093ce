import {
  ChildPriorityBody, ChildrenBody, ListingData, LoginBody, MeData, ObjectData, ObjectWriteBody, PosterData,
  PreviewData, PriorityData, RelatedListData, RelationData, RelationReplaceBody, RelationSummaryData, RelationsBody, SavedChildrenData,
  RevisionData, RevisionListData, SavedRelationsData, StreamTicketData, TokenData, TokenStatusData, TrashListData, TrashRestoreBody, type TSchema, UploadData,
} from '@content/api-schema'
import { compileRouteTable, type CustomMethods } from '../routing/compile.js'
import type { RoutingConfig } from '../routing/config-file.js'
import { KNOWN_FILTERS } from '../routing/defaults.js'
import { LIVE_PARAMETERS, parseLiveParams } from '../live/live-params.js'
import type { RouteRow, RouteSpec } from '../routing/route-types.js'
import { created, HTML, json, list, NO_CONTENT } from '../openapi/operations.js'
import type { Handler, RouteTable } from './context.js'
import { login, me, revoke, tokenStatus } from './handlers/auth.handlers.js'
import { issueTicket, openChanges, STREAM_POSITION_HEADER } from './handlers/changes.handlers.js'
import { custom } from './handlers/custom.handlers.js'
import { docsAsset, docsPage } from './handlers/docs-page.handlers.js'
import { upload } from './handlers/files.handlers.js'
import { listing } from './handlers/listing.handlers.js'
import { original, thumbnail } from './handlers/media.handlers.js'
import { deleteObject, getObject, listObjects, saveObject } from './handlers/objects.handlers.js'
import { errorsPage, openapi } from './handlers/openapi.handlers.js'
import { poster } from './handlers/poster.handlers.js'
import { createPreview, PREVIEW_QUERY, readPreview } from './handlers/preview.handlers.js'
import { deleteRelation, listRelated, relationDetail, relationSummary, replaceRelation, saveRelations } from './handlers/relations.handlers.js'
import { getRevision, listRevisions, restoreRevision, REVISIONS_QUERY } from './handlers/revisions.handlers.js'
import { listTrash, purgeTrashed, restoreTrashed, TRASH_LIST_QUERY } from './handlers/trash.handlers.js'
import { childPosition, listTree, removeChild, saveChildren, updateChild } from './handlers/tree.handlers.js'
import { LIST, SINGLE, TOKEN_ONLY } from './query.js'


type Spec = RouteSpec<Handler>
type Row = RouteRow<Handler>

// ---------------------------------------------------------------- what answers (one spec per operation)

const LISTING: Spec = {
  name: 'listing', handler: listing, accepts: TOKEN_ONLY,
  operation: { summary: 'Available endpoints', tag: 'API', success: [json(ListingData)], etag: true },
}
const AUTH_LOGIN: Spec = {
  name: 'auth.login', handler: login,
  operation: {
    summary: 'Log in or refresh a token', tag: 'Auth', body: LoginBody, success: [json(TokenData)],
    description: 'The password grant (default) answers a new token pair; the refresh grant trades a refresh token for a new pair, once.',
  },
}
const AUTH_STATUS: Spec = {
  name: 'auth.status', handler: tokenStatus, accepts: TOKEN_ONLY,
  operation: { summary: 'The presented access token and its remaining lifetime', tag: 'Auth', auth: true, success: [json(TokenStatusData)] },
}
const AUTH_REVOKE: Spec = {
  name: 'auth.revoke', handler: revoke,
  operation: { summary: 'Revoke a refresh token', tag: 'Auth', auth: true, success: [NO_CONTENT] },
}
const ME: Spec = {
  name: 'me', handler: me, accepts: ['lang', 'access_token'],
  operation: { summary: 'The logged-in user (and card object)', tag: 'Auth', auth: true, success: [json(MeData)], etag: true },
}
const POSTER: Spec = {
  name: 'poster', handler: poster, accepts: [...LIST.filter((p) => p !== 'lang'), 'width', 'height'],
  operation: {
    summary: 'The thumbnail of an object', tag: 'Media', success: [json(PosterData)], etag: true,
    description: 'The image of the object itself, else its first `poster`, then `attach` related image, else a placeholder; `uri` is a signed thumbnail URL at the asked size.',
  },
}
const OBJECTS_LIST: Spec = {
  name: 'objects.list', handler: listObjects, accepts: LIST, grammar: 'objects', cacheable: true,
  operation: list('Objects of the publication', 'Objects', 'Every object below the publication the caller may see, paginated.'),
}
const OBJECTS_GET: Spec = {
  name: 'objects.get', handler: getObject, accepts: SINGLE, grammar: 'single', cacheable: true,
  operation: { summary: 'One object, by id or nickname', tag: 'Objects', success: [json(ObjectData)], etag: true },
}
const OBJECTS_SAVE: Spec = {
  name: 'objects.save', handler: saveObject,
  operation: {
    summary: 'Create or update an object', tag: 'Objects', auth: true, body: ObjectWriteBody, idempotent: true,
    success: [json(ObjectData), created(ObjectData)],
    description: 'Without `id`: creates (201, `object_type` and `parents` or `relations` required). With `id`: updates the fields sent (200). `upload_token` attaches an uploaded file. `?status=draft` saves a draft, `?status=on` publishes, `?status=off` withdraws (decisions §16); without it a create is `on` and an update keeps the status.',
  },
}
const OBJECTS_DELETE: Spec = {
  name: 'objects.delete', handler: deleteObject,
  operation: {
    summary: 'Move an object to the trash', tag: 'Objects', auth: true, success: [NO_CONTENT],
    description: 'Every read of it then answers 404; `POST /trash/{object_id}/restore` brings it back, `DELETE /trash/{object_id}` purges it.',
  },
}
const PREVIEW_CREATE: Spec = {
  name: 'preview.create', handler: createPreview,
  operation: {
    summary: 'A preview URL of an object', tag: 'Objects', auth: true, success: [json(PreviewData)],
    description: 'Needs write rights on the object. `preview_url` reads the object as this writer would (drafts included, its read groups honoured) with no token, until `expires` (`PREVIEW_TTL`, default 1 h).',
  },
}
const PREVIEW_GET: Spec = {
  // never cacheable: the answer is the writer's own
  name: 'preview.get', handler: readPreview, accepts: PREVIEW_QUERY, grammar: 'single',
  operation: {
    summary: 'Read an object through a preview URL', tag: 'Objects', success: [json(ObjectData)],
    description: 'The URL comes from `POST /objects/{object_id}/preview`; `token` is signed and expires. It reads only while its writer may: a disabled or deleted writer, or one who may no longer write the object, makes it a 401. Related objects (counts, `include`) are shown as an anonymous reader sees them; a path naming another object is a 404. Takes `fields` and `include` like the single read. `Cache-Control: private, no-store`.',
  },
}
const REVISIONS_LIST: Spec = {
  name: 'revisions.list', handler: listRevisions, accepts: REVISIONS_QUERY,
  operation: {
    summary: 'Revisions of an object', tag: 'Revisions', auth: true, success: [json(RevisionListData, { paged: true })],
    description: 'Every change of its own fields (create, update, file change, restore), newest first: who, when, which fields, and all of them after the change. Needs read and write rights on the object; `REVISIONS_KEEP` bounds how many are kept.',
  },
}
const REVISIONS_GET: Spec = {
  name: 'revisions.get', handler: getRevision, accepts: TOKEN_ONLY,
  operation: { summary: 'One revision of an object', tag: 'Revisions', auth: true, success: [json(RevisionData)] },
}
const REVISIONS_RESTORE: Spec = {
  name: 'revisions.restore', handler: restoreRevision,
  operation: {
    summary: 'Restore a revision', tag: 'Revisions', auth: true, success: [json(ObjectData)],
    description: 'Writes every own field of that revision back, as an update (a field set later goes back to its old value or null); the restore is a new revision.',
  },
}
const TRASH_LIST: Spec = {
  name: 'trash.list', handler: listTrash, accepts: TRASH_LIST_QUERY,
  operation: {
    summary: 'Trashed objects', tag: 'Trash', auth: true, success: [json(TrashListData, { paged: true })],
    description: 'Newest first, only those the caller may write (administrators: all). Each object as it was when trashed, with `meta.trash` = when and by whom. Objects stay `TRASH_RETENTION_DAYS` (default 30), then are purged.',
  },
}
const TRASH_RESTORE: Spec = {
  name: 'trash.restore', handler: restoreTrashed,
  operation: {
    summary: 'Restore a trashed object', tag: 'Trash', auth: true, body: TrashRestoreBody, success: [json(ObjectData)],
    description: 'Brings back its fields, permissions, places under its parents and relations whose other end exists. 409 `PARENT_GONE` when its parents are gone, unless the optional body names new ones (`data.parents`).',
  },
}
const TRASH_PURGE: Spec = {
  name: 'trash.purge', handler: purgeTrashed,
  operation: { summary: 'Purge a trashed object for good', tag: 'Trash', auth: true, success: [NO_CONTENT], description: 'Its file is released once no other object uses it.' },
}
const CHANGES_STREAM: Spec = {
  name: 'changes.stream', handler: openChanges, ownQuery: LIVE_PARAMETERS, checkOwnQuery: parseLiveParams,
  operation: {
    summary: 'Live changes (Server-Sent Events)', tag: 'Changes',
    success: [{
      status: 200, bytes: ['text/event-stream'], description: 'a stream that stays open: `id:` position, `event:` type, `data:` the webhook body (ids and types only), `: ping` comments',
      headers: { [STREAM_POSITION_HEADER]: 'on a stream opened from now: its position, to resume from (as `Last-Event-ID`) when it is cut before its first event' },
    }],
    description: 'Each committed change of an object the caller may read, in commit order (decisions §17); a change that takes an object away from the caller is a bare `object.unpublished`. Resumes after `Last-Event-ID` or `after`; a position that cannot be resumed is answered `event: reset` first. Anything but the parameters listed is a 400 `INVALID_PARAMETER`; past the stream limits 503 (per gateway) or 429 (per caller) with `Retry-After`.',
  },
}
const CHANGES_TICKET: Spec = {
  name: 'changes.ticket', handler: issueTicket, accepts: TOKEN_ONLY, keepsReadCache: true,
  operation: {
    summary: 'A ticket for a live stream', tag: 'Changes', auth: true, success: [json(StreamTicketData)],
    description: 'For an EventSource, which cannot send headers: `GET /changes?ticket=…` opens a stream as the token\'s user. Single use, valid `expires_in` (60) seconds; a used, expired or unknown ticket is a 401 `TICKET_INVALID`.',
  },
}
const TYPE_LIST: Spec = {
  name: 'type.list', handler: listObjects, accepts: LIST.filter((p) => p !== 'filter[object_type]'), grammar: 'objects', cacheable: true,
  operation: list('Objects of one type', 'Objects'),
}
const TYPE_GET: Spec = {
  name: 'type.get', handler: getObject, accepts: SINGLE, grammar: 'single', cacheable: true,
  operation: { summary: 'One object of this type', tag: 'Objects', success: [json(ObjectData)], etag: true },
}
const TREE_LIST: Spec = {
  name: 'tree.list', handler: listTree, accepts: LIST, grammar: 'tree', cacheable: true,
  operation: list('Objects on the tree around an object', 'Tree'),
}
const CHILDREN_GET: Spec = {
  name: 'children.get', handler: childPosition, accepts: LIST, cacheable: true,
  operation: { summary: 'The priority of a child', tag: 'Tree', success: [json(PriorityData)], etag: true },
}
const CHILDREN_SAVE: Spec = {
  name: 'children.save', handler: saveChildren,
  operation: { summary: 'Add or move children', tag: 'Tree', auth: true, body: ChildrenBody, idempotent: true, success: [json(SavedChildrenData), created(SavedChildrenData)] },
}
const CHILDREN_UPDATE: Spec = {
  name: 'children.update', handler: updateChild,
  operation: { summary: 'Change the priority of a child', tag: 'Tree', auth: true, body: ChildPriorityBody, success: [json(PriorityData)] },
}
const CHILDREN_REMOVE: Spec = {
  name: 'children.remove', handler: removeChild,
  operation: { summary: 'Remove a child from its parent', tag: 'Tree', auth: true, success: [NO_CONTENT] },
}
const RELATIONS_SUMMARY: Spec = {
  name: 'relations.summary', handler: relationSummary, accepts: LIST, cacheable: true,
  operation: { summary: 'Relation names with counts', tag: 'Relations', success: [json(RelationSummaryData)], etag: true },
}
const RELATIONS_LIST: Spec = {
  name: 'relations.list', handler: listRelated, accepts: LIST, grammar: 'relations', cacheable: true,
  operation: { summary: 'Objects related by one relation', tag: 'Relations', success: [json(RelatedListData, { paged: true })], etag: true },
}
const RELATIONS_GET: Spec = {
  name: 'relations.get', handler: relationDetail, accepts: LIST, cacheable: true,
  operation: { summary: 'Priority and params of one relation', tag: 'Relations', success: [json(RelationData)], etag: true },
}
const RELATIONS_SAVE: Spec = {
  name: 'relations.save', handler: saveRelations,
  operation: { summary: 'Relate objects', tag: 'Relations', auth: true, body: RelationsBody, idempotent: true, success: [json(SavedRelationsData), created(SavedRelationsData)] },
}
const RELATIONS_REPLACE: Spec = {
  name: 'relations.replace', handler: replaceRelation,
  operation: { summary: 'Replace priority and params of a relation', tag: 'Relations', auth: true, body: RelationReplaceBody, success: [json(RelationData)] },
}
const RELATIONS_DELETE: Spec = {
  name: 'relations.delete', handler: deleteRelation,
  operation: { summary: 'Remove a relation', tag: 'Relations', auth: true, success: [NO_CONTENT] },
}
const CUSTOM: Spec = {
  // a custom module writes nothing of the objects service's
  name: 'custom', handler: custom, keepsReadCache: true,
  operation: { summary: 'Custom endpoint', tag: 'Custom', success: [json({} as TSchema)], description: 'A module of this deployment; it answers under any further path segments.' },
}
const FILES_UPLOAD: Spec = {
  // an upload is not attached to any object yet
  name: 'files.upload', handler: upload, accepts: TOKEN_ONLY, keepsReadCache: true,
  operation: {
    summary: 'Upload a file (first step of a media write)', tag: 'Media', auth: true, rawBody: true, success: [json(UploadData)],
    description: 'The raw body is the file, sent with its `Content-Type`. The answer\'s `upload_token` goes into `data.upload_token` of `POST /objects`.',
  },
}
const MEDIA_ORIGINAL: Spec = {
  name: 'media.original', handler: original, accepts: TOKEN_ONLY,
  operation: {
    summary: 'The original file of a media object', tag: 'Media', etag: true,
    success: [{ status: 200, bytes: ['*/*'], description: 'the file' }, { status: 206, bytes: ['*/*'], description: 'the requested byte range' }],
  },
}
const MEDIA_THUMBNAIL: Spec = {
  name: 'media.thumbnail', handler: thumbnail, accepts: ['expires', 'sig', 'access_token'],
  operation: {
    summary: 'A signed thumbnail', tag: 'Media', etag: true,
    success: [{ status: 200, bytes: ['image/jpeg', 'image/png'], description: 'the thumbnail' }],
    description: 'URLs come from `GET /poster/{object_id}`; any change to them is a 404.',
  },
}
const DOCS_OPENAPI: Spec = {
  name: 'docs.openapi', handler: openapi, accepts: [],
  operation: { summary: 'This document', tag: 'API', success: [{ status: 200, document: true }], etag: true },
}
const DOCS_PAGE: Spec = {
  name: 'docs.page', handler: docsPage, accepts: [],
  operation: { summary: 'The reference page of this document', tag: 'API', success: [{ status: 200, bytes: HTML, description: 'HTML' }], etag: true },
}
const DOCS_ERRORS: Spec = {
  name: 'docs.errors', handler: errorsPage, accepts: [],
  operation: { summary: 'Every error code', tag: 'API', success: [{ status: 200, bytes: HTML, description: 'HTML' }], etag: true },
}
const DOCS_ASSET: Spec = {
  name: 'docs.asset', handler: docsAsset, accepts: [],
  operation: { summary: 'Scripts, styles and icon of the reference page', tag: 'API', success: [{ status: 200, bytes: ['text/css', 'text/javascript', 'image/png'], description: 'the file' }], etag: true },
}

// ---------------------------------------------------------------- where (every path the gateway answers)

/** The path filters that list objects on the tree (spec 4.10): GET only. */
const TREE_FILTERS = KNOWN_FILTERS.filter((f) => f !== 'relations' && f !== 'children')

/**
 * The route table (decisions §9): every method and path template below the base path, and its operation.
 * The configuration compiles it (routing/compile.ts): rows of a blacklisted endpoint go; a path filter's
 * rows stay for the methods it is enabled for; each object-type endpoint takes the `/objects` rows marked
 * `underTypeEndpoints` (GET only); `{custom}` stands for each custom endpoint, with its module's methods.
 * The router, the OpenAPI document, the 405 answers' `Allow` and the metric labels all read this table.
 */
export const ROUTE_TABLE: readonly Row[] = [
  { method: 'GET', path: '/', ...LISTING },
  { method: 'GET', path: '/auth', ...AUTH_STATUS },
  { method: 'POST', path: '/auth', ...AUTH_LOGIN },
  { method: 'DELETE', path: '/auth/{refresh_token}', ...AUTH_REVOKE },
  { method: 'GET', path: '/me', ...ME },
  { method: 'GET', path: '/poster/{object_id}', ...POSTER },
  { method: 'POST', path: '/files/{object_type}/{file_name}', ...FILES_UPLOAD },
  { method: 'GET', path: '/objects', ...OBJECTS_LIST, underTypeEndpoints: TYPE_LIST },
  { method: 'POST', path: '/objects', ...OBJECTS_SAVE },
  { method: 'GET', path: '/objects/{object_id}', ...OBJECTS_GET, underTypeEndpoints: TYPE_GET },
  { method: 'DELETE', path: '/objects/{object_id}', ...OBJECTS_DELETE },
  { method: 'GET', path: '/objects/{object_id}/relations', filter: 'relations', ...RELATIONS_SUMMARY, underTypeEndpoints: 'same' },
  { method: 'GET', path: '/objects/{object_id}/relations/{relation_name}', filter: 'relations', ...RELATIONS_LIST, underTypeEndpoints: 'same' },
  { method: 'POST', path: '/objects/{object_id}/relations/{relation_name}', filter: 'relations', ...RELATIONS_SAVE },
  { method: 'GET', path: '/objects/{object_id}/relations/{relation_name}/{related_id}', filter: 'relations', ...RELATIONS_GET, underTypeEndpoints: 'same' },
  { method: 'PUT', path: '/objects/{object_id}/relations/{relation_name}/{related_id}', filter: 'relations', ...RELATIONS_REPLACE },
  { method: 'DELETE', path: '/objects/{object_id}/relations/{relation_name}/{related_id}', filter: 'relations', ...RELATIONS_DELETE },
  { method: 'GET', path: '/objects/{object_id}/children', filter: 'children', ...TREE_LIST, underTypeEndpoints: 'same' },
  { method: 'POST', path: '/objects/{object_id}/children', filter: 'children', ...CHILDREN_SAVE },
  { method: 'GET', path: '/objects/{object_id}/children/{child_id}', filter: 'children', ...CHILDREN_GET, underTypeEndpoints: 'same' },
  { method: 'PUT', path: '/objects/{object_id}/children/{child_id}', filter: 'children', ...CHILDREN_UPDATE },
  { method: 'DELETE', path: '/objects/{object_id}/children/{child_id}', filter: 'children', ...CHILDREN_REMOVE },
  ...TREE_FILTERS.map((filter): Row => ({ method: 'GET', path: `/objects/{object_id}/${filter}`, filter, ...TREE_LIST, underTypeEndpoints: 'same' })),
  { method: 'POST', path: '/objects/{object_id}/preview', ...PREVIEW_CREATE },
  { method: 'GET', path: '/objects/{object_id}/preview', ...PREVIEW_GET },
  { method: 'GET', path: '/objects/{object_id}/revisions', ...REVISIONS_LIST },
  { method: 'GET', path: '/objects/{object_id}/revisions/{revision}', ...REVISIONS_GET },
  { method: 'POST', path: '/objects/{object_id}/revisions/{revision}/restore', ...REVISIONS_RESTORE },
  { method: 'GET', path: '/changes', ...CHANGES_STREAM },
  { method: 'POST', path: '/changes/tickets', ...CHANGES_TICKET },
  { method: 'GET', path: '/trash', ...TRASH_LIST },
  { method: 'POST', path: '/trash/{object_id}/restore', ...TRASH_RESTORE },
  { method: 'DELETE', path: '/trash/{object_id}', ...TRASH_PURGE },
  ...(['GET', 'POST', 'PUT', 'DELETE'] as const).map((method): Row => ({ method, path: '/{custom}/{rest…}', ...CUSTOM })),
  { method: 'GET', path: '/media/{object_id}/{file_name}', ...MEDIA_ORIGINAL },
  { method: 'GET', path: '/thumbnails/{path…}', documented: '/thumbnails/{key}/{file}', ...MEDIA_THUMBNAIL },
  { method: 'GET', path: '/openapi.json', ...DOCS_OPENAPI },
  { method: 'GET', path: '/docs', ...DOCS_PAGE },
  { method: 'GET', path: '/docs/errors', ...DOCS_ERRORS },
  { method: 'GET', path: '/docs/assets/{asset}', ...DOCS_ASSET },
]

/** The route table of one configuration, answered by this gateway's handlers. */
export const compileRoutes = (config: RoutingConfig, customs?: CustomMethods): RouteTable => compileRouteTable(ROUTE_TABLE, config, customs)
