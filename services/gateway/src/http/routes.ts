import {
  ChildPriorityBody, ChildrenBody, ListingData, LoginBody, MeData, ObjectData, ObjectWriteBody, PosterData,
  PriorityData, RelatedListData, RelationData, RelationReplaceBody, RelationSummaryData, RelationsBody, SavedChildrenData,
  SavedRelationsData, TokenData, TokenStatusData, type TSchema, UploadData,
} from '@content/api-schema'
import type { HandlerKey } from '../routing/resolve.js'
import { created, HTML, json, list, NO_CONTENT, type Operation } from '../openapi/operations.js'
import type { Handler } from './context.js'
import { login, me, revoke, tokenStatus } from './handlers/auth.handlers.js'
import { custom } from './handlers/custom.handlers.js'
import { docsAsset, docsPage } from './handlers/docs-page.handlers.js'
import { upload } from './handlers/files.handlers.js'
import { listing } from './handlers/listing.handlers.js'
import { original, thumbnail } from './handlers/media.handlers.js'
import { deleteObject, getObject, listObjects, saveObject } from './handlers/objects.handlers.js'
import { errorsPage, openapi } from './handlers/openapi.handlers.js'
import { poster } from './handlers/poster.handlers.js'
import { deleteRelation, listRelated, relationDetail, relationSummary, replaceRelation, saveRelations } from './handlers/relations.handlers.js'
import { childPosition, listTree, removeChild, saveChildren, updateChild } from './handlers/tree.handlers.js'
import { LIST, TOKEN_ONLY } from './query.js'

/** Everything the gateway knows of one kind of request, once: the path shapes that lead to it are in routing/resolve.ts. */
export interface RouteSpec {
  handler: Handler
  /** the query parameters it accepts (others are 400); absent: not checked (other writes, custom modules) */
  accepts?: readonly string[]
  /** a read whose whole answer depends only on the objects service's data and the caller's groups */
  cacheable?: true
  /** a write that changes nothing a cached read shows: it leaves the read cache alone */
  keepsReadCache?: true
  /** what it takes and answers: the source of its OpenAPI operation */
  operation: Operation
}

export const ROUTES: Readonly<Record<HandlerKey, RouteSpec>> = {
  'listing': {
    handler: listing, accepts: TOKEN_ONLY,
    operation: { summary: 'Available endpoints', tag: 'API', success: [json(ListingData)], etag: true },
  },
  'auth.login': {
    handler: login,
    operation: {
      summary: 'Log in or refresh a token', tag: 'Auth', body: LoginBody, success: [json(TokenData)],
      description: 'The password grant (default) answers a new token pair; the refresh grant trades a refresh token for a new pair, once.',
    },
  },
  'auth.status': {
    handler: tokenStatus, accepts: TOKEN_ONLY,
    operation: { summary: 'The presented access token and its remaining lifetime', tag: 'Auth', auth: true, success: [json(TokenStatusData)] },
  },
  'auth.revoke': {
    handler: revoke,
    operation: { summary: 'Revoke a refresh token', tag: 'Auth', auth: true, success: [NO_CONTENT] },
  },
  'me': {
    handler: me, accepts: ['lang', 'access_token'],
    operation: { summary: 'The logged-in user (and card object)', tag: 'Auth', auth: true, success: [json(MeData)], etag: true },
  },
  'poster': {
    handler: poster, accepts: [...LIST.filter((p) => p !== 'lang'), 'width', 'height'],
    operation: {
      summary: 'The thumbnail of an object', tag: 'Media', success: [json(PosterData)], etag: true,
      description: 'The image of the object itself, else its first `poster`, then `attach` related image, else a placeholder; `uri` is a signed thumbnail URL at the asked size.',
    },
  },
  'objects.list': {
    handler: listObjects, accepts: LIST, cacheable: true,
    operation: list('Objects of the publication', 'Objects', 'Every object below the publication the caller may see, paginated.'),
  },
  'objects.get': {
    handler: getObject, accepts: LIST, cacheable: true,
    operation: { summary: 'One object, by id or nickname', tag: 'Objects', success: [json(ObjectData)], etag: true },
  },
  'objects.save': {
    handler: saveObject,
    operation: {
      summary: 'Create or update an object', tag: 'Objects', auth: true, body: ObjectWriteBody, idempotent: true,
      success: [json(ObjectData), created(ObjectData)],
      description: 'Without `id`: creates (201, `object_type` and `parents` or `relations` required). With `id`: updates the fields sent (200). `upload_token` attaches an uploaded file.',
    },
  },
  'objects.delete': {
    handler: deleteObject,
    operation: { summary: 'Delete an object', tag: 'Objects', auth: true, success: [NO_CONTENT] },
  },
  'type.list': {
    handler: listObjects, accepts: LIST.filter((p) => p !== 'filter[object_type]'), cacheable: true,
    operation: list('Objects of one type', 'Objects'),
  },
  'type.get': {
    handler: getObject, accepts: LIST, cacheable: true,
    operation: { summary: 'One object of this type', tag: 'Objects', success: [json(ObjectData)], etag: true },
  },
  'tree.list': {
    handler: listTree, accepts: LIST, cacheable: true,
    operation: list('Objects on the tree around an object', 'Tree'),
  },
  'children.get': {
    handler: childPosition, accepts: LIST, cacheable: true,
    operation: { summary: 'The priority of a child', tag: 'Tree', success: [json(PriorityData)], etag: true },
  },
  'children.save': {
    handler: saveChildren,
    operation: { summary: 'Add or move children', tag: 'Tree', auth: true, body: ChildrenBody, idempotent: true, success: [json(SavedChildrenData), created(SavedChildrenData)] },
  },
  'children.update': {
    handler: updateChild,
    operation: { summary: 'Change the priority of a child', tag: 'Tree', auth: true, body: ChildPriorityBody, success: [json(PriorityData)] },
  },
  'children.remove': {
    handler: removeChild,
    operation: { summary: 'Remove a child from its parent', tag: 'Tree', auth: true, success: [NO_CONTENT] },
  },
  'relations.summary': {
    handler: relationSummary, accepts: LIST, cacheable: true,
    operation: { summary: 'Relation names with counts', tag: 'Relations', success: [json(RelationSummaryData)], etag: true },
  },
  'relations.list': {
    handler: listRelated, accepts: LIST, cacheable: true,
    operation: { summary: 'Objects related by one relation', tag: 'Relations', success: [json(RelatedListData, { paged: true })], etag: true },
  },
  'relations.get': {
    handler: relationDetail, accepts: LIST, cacheable: true,
    operation: { summary: 'Priority and params of one relation', tag: 'Relations', success: [json(RelationData)], etag: true },
  },
  'relations.save': {
    handler: saveRelations,
    operation: { summary: 'Relate objects', tag: 'Relations', auth: true, body: RelationsBody, idempotent: true, success: [json(SavedRelationsData), created(SavedRelationsData)] },
  },
  'relations.replace': {
    handler: replaceRelation,
    operation: { summary: 'Replace priority and params of a relation', tag: 'Relations', auth: true, body: RelationReplaceBody, success: [json(RelationData)] },
  },
  'relations.delete': {
    handler: deleteRelation,
    operation: { summary: 'Remove a relation', tag: 'Relations', auth: true, success: [NO_CONTENT] },
  },
  'custom': {
    // a custom module writes nothing of the objects service's
    handler: custom, keepsReadCache: true,
    operation: { summary: 'Custom endpoint', tag: 'Custom', success: [json({} as TSchema)], description: 'A module of this deployment; it answers under any further path segments.' },
  },
  'files.upload': {
    // an upload is not attached to any object yet
    handler: upload, accepts: TOKEN_ONLY, keepsReadCache: true,
    operation: {
      summary: 'Upload a file (first step of a media write)', tag: 'Media', auth: true, rawBody: true, success: [json(UploadData)],
      description: 'The raw body is the file, sent with its `Content-Type`. The answer\'s `upload_token` goes into `data.upload_token` of `POST /objects`.',
    },
  },
  'media.original': {
    handler: original, accepts: TOKEN_ONLY,
    operation: {
      summary: 'The original file of a media object', tag: 'Media', etag: true,
      success: [{ status: 200, bytes: ['*/*'], description: 'the file' }, { status: 206, bytes: ['*/*'], description: 'the requested byte range' }],
    },
  },
  'media.thumbnail': {
    handler: thumbnail, accepts: ['expires', 'sig', 'access_token'],
    operation: {
      summary: 'A signed thumbnail', tag: 'Media', etag: true,
      success: [{ status: 200, bytes: ['image/jpeg', 'image/png'], description: 'the thumbnail' }],
      description: 'URLs come from `GET /poster/{object_id}`; any change to them is a 404.',
    },
  },
  'docs.openapi': {
    handler: openapi, accepts: [],
    operation: { summary: 'This document', tag: 'API', success: [{ status: 200, document: true }], etag: true },
  },
  'docs.page': {
    handler: docsPage, accepts: [],
    operation: { summary: 'The reference page of this document', tag: 'API', success: [{ status: 200, bytes: HTML, description: 'HTML' }], etag: true },
  },
  'docs.errors': {
    handler: errorsPage, accepts: [],
    operation: { summary: 'Every error code', tag: 'API', success: [{ status: 200, bytes: HTML, description: 'HTML' }], etag: true },
  },
  'docs.asset': {
    handler: docsAsset, accepts: [],
    operation: { summary: 'Scripts, styles and icon of the reference page', tag: 'API', success: [{ status: 200, bytes: ['text/css', 'text/javascript', 'image/png'], description: 'the file' }], etag: true },
  },
}
