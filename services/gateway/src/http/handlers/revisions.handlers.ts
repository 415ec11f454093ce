import { OWN_FIELD_NAMES, OWN_FIELDS } from '@content/api-schema'
import type { v1 } from '@content/protos'
import { envelope } from '../envelope.js'
import { writeCall } from '../errors.js'
import { formatDate, formatOptionalDate } from '../formatters/dates.js'
import { formatObject } from '../formatters/object.js'
import { formatPaging } from '../formatters/paging.js'
import { callOptions, formatContext, listParams, ok, requireCaller, routeParams, type Handler } from '../context.js'

/** What the revision list accepts: paging only. */
export const REVISIONS_QUERY = ['page', 'page_size', 'access_token']

/** A revision as the API shows it: its fields in the object's JSON form (dates ISO 8601 in the server's zone). */
export function formatRevision (r: v1.Revision__Output, timeZone: string) {
  const stored = JSON.parse(r.data_json || '{}') as Record<string, unknown>
  const data = Object.fromEntries(OWN_FIELD_NAMES.map((f) => {
    const value = stored[f] ?? null
    return [f, OWN_FIELDS[f].kind === 'date' ? formatOptionalDate(value as number | null, timeZone) : value]
  }))
  return { revision: r.revision, created: formatDate(r.created, timeZone), user_id: r.user_id, changed: r.changed ?? [], data }
}

/** GET /objects/{object_id}/revisions (decisions §16): `data.revisions`, newest first, paged. */
export const listRevisions: Handler = async (ctx, deps) => {
  requireCaller(ctx)
  const { page } = listParams(ctx)
  const list = await deps.clients.objects.ListRevisions({ object_id: routeParams(ctx, 'objectId').objectId, page }, callOptions(ctx))
  const data = { revisions: (list.revisions ?? []).map((r) => formatRevision(r, deps.timeZone)) }
  return ok(envelope(ctx.info, ctx.route.endpoint, data, formatPaging(list.paging, page)))
}

/** GET /objects/{object_id}/revisions/{revision}: `data.revision`. */
export const getRevision: Handler = async (ctx, deps) => {
  requireCaller(ctx)
  const { objectId, revision } = routeParams(ctx, 'objectId', 'revision')
  const res = await deps.clients.objects.GetRevision({ object_id: objectId, revision }, callOptions(ctx))
  if (!res.revision) throw new Error('GetRevision answered without a revision')
  return ok(envelope(ctx.info, ctx.route.endpoint, { revision: formatRevision(res.revision, deps.timeZone) }))
}

/** POST /objects/{object_id}/revisions/{revision}/restore: an update (200 with the object). */
export const restoreRevision: Handler = async (ctx, deps) => {
  requireCaller(ctx)
  const { objectId, revision } = routeParams(ctx, 'objectId', 'revision')
  const res = await writeCall(deps.clients.objects.RestoreRevision({ object_id: objectId, revision }, callOptions(ctx)))
  if (!res.object) throw new Error('RestoreRevision answered without an object')
  return ok(envelope(ctx.info, ctx.route.endpoint, { object: formatObject(res.object, formatContext(ctx, deps)) }))
}
