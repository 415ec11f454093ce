import type { v1 } from '@content/protos'
import type { FilterName } from '../../routing/defaults.js'
import { envelope } from '../envelope.js'
import { writeCall } from '../errors.js'
import { idempotencyOf, replayHeaders } from '../idempotency.js'
import { callOptions, bodyJson, listParams, noContent, ok, pathType, requireCaller, routeParams, type Handler } from '../context.js'
import { refuseListOnly } from '../query.js'
import { listReply } from './objects.handlers.js'

const KIND: Readonly<Record<FilterName, v1.TreeListKind>> = {
  children: 'CHILDREN', sections: 'SECTIONS', contents: 'CONTENTS', descendants: 'DESCENDANTS',
  siblings: 'SIBLINGS', ancestors: 'ANCESTORS', parents: 'PARENTS', relations: 'TREE_LIST_KIND_UNSPECIFIED',
}

export const listTree: Handler = async (ctx, deps) => {
  const { objectId, filter } = routeParams(ctx, 'objectId', 'filter')
  if (filter === 'parents' || filter === 'ancestors') refuseListOnly(ctx.info.query, filter)
  const list = await deps.clients.tree.ListTree({
    object_id: objectId, object_type: pathType(ctx), kind: KIND[filter], ...listParams(ctx),
  }, callOptions(ctx))
  return listReply(ctx, deps, list)
}

export const childPosition: Handler = async (ctx, deps) => {
  const { objectId, childId } = routeParams(ctx, 'objectId', 'childId')
  const res = await deps.clients.tree.GetChildPosition({ object_id: objectId, object_type: pathType(ctx), child_id: childId }, callOptions(ctx))
  return ok(envelope(ctx.info, ctx.route.endpoint, { priority: res.priority }))
}

/** POST …/children: 201 + Location of the collection when a child was added, else 200. */
export const saveChildren: Handler = async (ctx, deps) => {
  const once = idempotencyOf(ctx)
  requireCaller(ctx)
  const res = await writeCall(deps.clients.tree.SaveChildren({ object_id: routeParams(ctx, 'objectId').objectId, ...bodyJson(ctx), ...once }, callOptions(ctx)))
  const saved = (res.items ?? []).map((i) => ({ child_id: i.child_id, priority: i.priority }))
  const body = envelope(ctx.info, ctx.route.endpoint, saved)
  return (res.items ?? []).some((i) => i.created) ? { status: 201, body, headers: { location: ctx.info.url, ...replayHeaders(ctx) } } : ok(body, replayHeaders(ctx))
}

export const updateChild: Handler = async (ctx, deps) => {
  requireCaller(ctx)
  const { objectId, childId } = routeParams(ctx, 'objectId', 'childId')
  const res = await writeCall(deps.clients.tree.UpdateChild({ object_id: objectId, child_id: childId, ...bodyJson(ctx) }, callOptions(ctx)))
  return ok(envelope(ctx.info, ctx.route.endpoint, { priority: res.priority }))
}

export const removeChild: Handler = async (ctx, deps) => {
  requireCaller(ctx)
  const { objectId, childId } = routeParams(ctx, 'objectId', 'childId')
  await writeCall(deps.clients.tree.RemoveChild({ object_id: objectId, child_id: childId }, callOptions(ctx)))
  return noContent()
}
