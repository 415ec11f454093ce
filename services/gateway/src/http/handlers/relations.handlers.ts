import { envelope } from '../envelope.js'
import { formatRelatedObject, parseParams } from '../formatters/object.js'
import { writeCall } from '../errors.js'
import { idempotencyOf, replayHeaders } from '../idempotency.js'
import { baseUrl, callOptions, bodyJson, listParams, noContent, ok, pathType, requireCaller, routeParams, type Handler } from '../context.js'
import { listReply } from './objects.handlers.js'

export const relationSummary: Handler = async (ctx, deps) => {
  const { objectId } = routeParams(ctx, 'objectId')
  const res = await deps.clients.objects.GetRelationSummary({ object_id: objectId, object_type: pathType(ctx) }, callOptions(ctx))
  // relation URLs name the id (decisions §4), even when the path used a nickname
  const data: Record<string, { count: number, url: string }> = {}
  for (const r of res.relations ?? []) data[r.name] = { count: r.count, url: `${baseUrl(ctx, deps)}/objects/${res.object_id}/relations/${r.name}` }
  return ok(envelope(ctx.info, ctx.route.endpoint, data))
}

export const listRelated: Handler = async (ctx, deps) => {
  const { objectId, relationName } = routeParams(ctx, 'objectId', 'relationName')
  const list = await deps.clients.objects.ListRelated({
    object_id: objectId, object_type: pathType(ctx), name: relationName, ...listParams(ctx),
  }, callOptions(ctx))
  return listReply(ctx, deps, list, formatRelatedObject)
}

export const relationDetail: Handler = async (ctx, deps) => {
  const { objectId, relationName, relatedId } = routeParams(ctx, 'objectId', 'relationName', 'relatedId')
  const res = await deps.clients.objects.GetRelation({ object_id: objectId, object_type: pathType(ctx), name: relationName, related_id: relatedId }, callOptions(ctx))
  return ok(envelope(ctx.info, ctx.route.endpoint, { priority: res.priority ?? null, params: parseParams(res.params_json) }))
}

/** POST …/relations/{name}: 201 + Location of the collection when a relation was created, else 200. */
export const saveRelations: Handler = async (ctx, deps) => {
  const once = idempotencyOf(ctx)
  requireCaller(ctx)
  const { objectId, relationName } = routeParams(ctx, 'objectId', 'relationName')
  const res = await writeCall(deps.clients.objects.SaveRelations({ object_id: objectId, name: relationName, ...bodyJson(ctx), ...once }, callOptions(ctx)))
  const saved = (res.items ?? []).map((i) => ({ related_id: i.related_id, priority: i.priority, params: parseParams(i.params_json) }))
  const body = envelope(ctx.info, ctx.route.endpoint, saved)
  return (res.items ?? []).some((i) => i.created) ? { status: 201, body, headers: { location: ctx.info.url, ...replayHeaders(ctx) } } : ok(body, replayHeaders(ctx))
}

export const replaceRelation: Handler = async (ctx, deps) => {
  requireCaller(ctx)
  const { objectId, relationName, relatedId } = routeParams(ctx, 'objectId', 'relationName', 'relatedId')
  const res = await writeCall(deps.clients.objects.ReplaceRelation({
    object_id: objectId, name: relationName, related_id: relatedId, ...bodyJson(ctx),
  }, callOptions(ctx)))
  return ok(envelope(ctx.info, ctx.route.endpoint, { priority: res.priority ?? null, params: parseParams(res.params_json) }))
}

export const deleteRelation: Handler = async (ctx, deps) => {
  requireCaller(ctx)
  const { objectId, relationName, relatedId } = routeParams(ctx, 'objectId', 'relationName', 'relatedId')
  await writeCall(deps.clients.objects.DeleteRelation({ object_id: objectId, name: relationName, related_id: relatedId }, callOptions(ctx)))
  return noContent()
}
