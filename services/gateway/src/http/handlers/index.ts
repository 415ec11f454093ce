import type { HandlerKey } from '../../routing/resolve.js'
import { envelope } from '../envelope.js'
import { HttpError } from '../errors.js'
import { ok, type Handler } from '../context.js'
import { endpointListing } from '../../routing/listing.js'
import { login, me, revoke, tokenStatus } from './auth.handlers.js'
import { upload } from './files.handlers.js'
import { docsAsset, docsPage } from './docs-page.handlers.js'
import { original, thumbnail } from './media.handlers.js'
import { errorsPage, openapi } from './openapi.handlers.js'
import { deleteObject, getObject, listObjects, saveObject } from './objects.handlers.js'
import { poster } from './poster.handlers.js'
import { deleteRelation, listRelated, relationDetail, relationSummary, replaceRelation, saveRelations } from './relations.handlers.js'
import { childPosition, listTree, removeChild, saveChildren, updateChild } from './tree.handlers.js'
import type { Method } from '../../routing/defaults.js'

const listing: Handler = async (ctx, deps) => ok(envelope(ctx.info, '', endpointListing(deps.table, ctx.info.origin)))

const custom: Handler = async (ctx, deps) => {
  const mod = deps.customs.get(ctx.route.endpoint)
  const method = ctx.info.method.toUpperCase() === 'HEAD' ? 'GET' : ctx.info.method.toUpperCase() as Method
  const handler = mod && ('all' in mod ? mod.all : mod.methods[method])
  if (!handler) throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed here`)
  const data = await handler({ method, segments: ctx.route.params.rest ?? [], query: ctx.info.query, body: ctx.body, caller: ctx.caller })
  return ok(envelope(ctx.info, ctx.route.endpoint, data ?? null))
}

export const HANDLERS: Readonly<Record<HandlerKey, Handler>> = {
  'listing': listing,
  'auth.login': login,
  'auth.status': tokenStatus,
  'auth.revoke': revoke,
  'me': me,
  'poster': poster,
  'objects.list': listObjects,
  'objects.get': getObject,
  'objects.save': saveObject,
  'objects.delete': deleteObject,
  'type.list': listObjects,
  'type.get': getObject,
  'tree.list': listTree,
  'children.get': childPosition,
  'children.save': saveChildren,
  'children.update': updateChild,
  'children.remove': removeChild,
  'relations.summary': relationSummary,
  'relations.list': listRelated,
  'relations.get': relationDetail,
  'relations.save': saveRelations,
  'relations.replace': replaceRelation,
  'relations.delete': deleteRelation,
  'custom': custom,
  'files.upload': upload,
  'media.original': original,
  'media.thumbnail': thumbnail,
  'docs.openapi': openapi,
  'docs.page': docsPage,
  'docs.errors': errorsPage,
  'docs.asset': docsAsset,
}

/** Writes that change nothing a cached read shows: they leave the read cache alone. */
export const KEEPS_READ_CACHE: ReadonlySet<HandlerKey> = new Set<HandlerKey>([
  // custom modules write nothing of the objects service's; an upload is not attached to any object yet
  'custom', 'files.upload',
])

/** Reads whose whole answer depends only on the objects service's data and the caller's groups. */
export const CACHEABLE: ReadonlySet<HandlerKey> = new Set<HandlerKey>([
  'objects.list', 'objects.get', 'type.list', 'type.get', 'tree.list', 'children.get',
  'relations.summary', 'relations.list', 'relations.get',
])
