import type { v1 } from '@content/protos'
import { envelope } from '../envelope.js'
import { HttpError, writeCall } from '../errors.js'
import { idempotencyOf, replayHeaders } from '../idempotency.js'
import { formatObject, withIncluded } from '../formatters/object.js'
import { formatPaging } from '../formatters/paging.js'
import { replyOnce } from '../shared-replies.js'
import {
  baseUrl, callOptions, bodyJson, formatContext, listParams, noContent, ok, pathType, requireCaller, routeParams,
  type Handler, type HandlerDeps, type RequestContext,
} from '../context.js'

/** A paginated list answer: `data.objects` and `paging`, always. */
export function listReply (ctx: RequestContext, deps: HandlerDeps, list: v1.ObjectList__Output, format = formatObject) {
  return replyOnce(list, ctx, () => {
    const fc = formatContext(ctx, deps)
    const data = { objects: withIncluded((list.objects ?? []).map((o) => format(o, fc)), list.included, fc) }
    return ok(envelope(ctx.info, ctx.route.endpoint, data, formatPaging(list.paging, listParams(ctx).page, ctx.shape)))
  })
}

export const listObjects: Handler = async (ctx, deps) => {
  const { page, filter, query } = listParams(ctx)
  // an object-type endpoint lists its own type (it accepts no filter[object_type])
  const objectType = ctx.params.objectType
  const list = await deps.clients.objects.ListObjects({ page, filter: objectType ? { ...filter, object_types: [objectType] } : filter, query }, callOptions(ctx))
  return listReply(ctx, deps, list)
}

export const getObject: Handler = async (ctx, deps) => {
  const { objectId } = routeParams(ctx, 'objectId')
  const answer = await deps.clients.objects.GetObject({ object_id: objectId, object_type: pathType(ctx), query: listParams(ctx).query }, callOptions(ctx))
  const { object, included } = answer
  if (!object) throw new Error('GetObject answered without an object')
  return replyOnce(answer, ctx, () => {
    const fc = formatContext(ctx, deps)
    const [shown] = withIncluded([formatObject(object, fc)], included, fc)
    return ok(envelope(ctx.info, ctx.route.endpoint, { object: shown }))
  })
}

/**
 * Decisions §16: a write saves a draft, publishes or unpublishes with `?status=draft|on|off` (the body's
 * `status` stays server-owned, §4); without it a create is `on` and an update keeps the status.
 */
function writeStatus (ctx: RequestContext): string {
  const status = ctx.info.query.get('status')
  if (status === null) return ''
  if (!(WRITE_STATUSES as readonly string[]).includes(status) || ctx.info.query.getAll('status').length > 1) {
    throw new HttpError('INVALID_PARAMETER', `status takes one of ${WRITE_STATUSES.join(', ')}; got "${status}"`, { parameter: 'status' })
  }
  return status
}
const WRITE_STATUSES = ['draft', 'on', 'off'] as const

/** POST /objects: create (201 + Location) or update (200); the objects service validates `data`. */
export const saveObject: Handler = async (ctx, deps) => {
  const once = idempotencyOf(ctx)
  requireCaller(ctx)
  const status = writeStatus(ctx)
  const res = await writeCall(deps.clients.objects.SaveObject({
    ...bodyJson(ctx), writable_types: [...deps.table.writableTypes], ...once, status,
  }, callOptions(ctx)))
  if (!res.object) throw new Error('SaveObject answered without an object')
  const body = envelope(ctx.info, ctx.route.endpoint, { object: formatObject(res.object, formatContext(ctx, deps)) })
  if (!res.created) return ok(body, replayHeaders(ctx))
  return { status: 201, body, headers: { location: `${baseUrl(ctx, deps)}/objects/${res.object.id}`, ...replayHeaders(ctx) } }
}

export const deleteObject: Handler = async (ctx, deps) => {
  requireCaller(ctx)
  await writeCall(deps.clients.objects.DeleteObject({ object_id: routeParams(ctx, 'objectId').objectId }, callOptions(ctx)))
  return noContent()
}
