import { envelope } from '../envelope.js'
import { writeCall } from '../errors.js'
import { formatObject, formatTrashedObject } from '../formatters/object.js'
import { formatPaging } from '../formatters/paging.js'
import { bodyJson, callOptions, formatContext, listParams, noContent, ok, requireCaller, routeParams, type Handler } from '../context.js'

/** What `GET /trash` accepts: paging only (a trash list is no publication list: no filters, no translation). */
export const TRASH_LIST_QUERY = ['page', 'page_size', 'access_token']

/** GET /trash (decisions §16): `data.objects`, each with `meta.trash`, paged; writers only. */
export const listTrash: Handler = async (ctx, deps) => {
  requireCaller(ctx)
  const { page } = listParams(ctx)
  const list = await deps.clients.objects.ListTrash({ page }, callOptions(ctx))
  const fc = formatContext(ctx, deps)
  const data = { objects: (list.objects ?? []).map((t) => formatTrashedObject(t, fc)) }
  return ok(envelope(ctx.info, ctx.route.endpoint, data, formatPaging(list.paging, page)))
}

/** POST /trash/{object_id}/restore: 200 with the object; an optional body's `data.parents` places it anew. */
export const restoreTrashed: Handler = async (ctx, deps) => {
  requireCaller(ctx)
  const res = await writeCall(deps.clients.objects.RestoreTrashed({ object_id: routeParams(ctx, 'objectId').objectId, ...bodyJson(ctx) }, callOptions(ctx)))
  if (!res.object) throw new Error('RestoreTrashed answered without an object')
  return ok(envelope(ctx.info, ctx.route.endpoint, { object: formatObject(res.object, formatContext(ctx, deps)) }))
}

/** DELETE /trash/{object_id}: purged for good, 204. */
export const purgeTrashed: Handler = async (ctx, deps) => {
  requireCaller(ctx)
  await writeCall(deps.clients.objects.PurgeTrashed({ object_id: routeParams(ctx, 'objectId').objectId }, callOptions(ctx)))
  return noContent()
}
