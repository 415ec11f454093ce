import { envelope } from '../envelope.js'
import { SINGLE } from '../query.js'
import { HttpError, writeCall } from '../errors.js'
import { formatDate } from '../formatters/dates.js'
import { formatObject, withIncluded } from '../formatters/object.js'
import { baseUrl, callOptions, formatContext, listParams, ok, PRIVATE_NO_STORE, requireCaller, routeParams, type Handler } from '../context.js'

/** What the preview read accepts besides the §15 single-read grammar (fields, include): its token. */
export const PREVIEW_QUERY = [...SINGLE, 'token']

/**
 * POST /objects/{object_id}/preview (decisions §16): a URL that reads the object as this writer would,
 * with no token, until `expires`. The objects service signs it and checks the writer's rights.
 */
export const createPreview: Handler = async (ctx, deps) => {
  requireCaller(ctx)
  const grant = await writeCall(deps.clients.objects.CreatePreview({ object_id: routeParams(ctx, 'objectId').objectId }, callOptions(ctx)))
  const previewUrl = `${baseUrl(ctx, deps)}/objects/${grant.object_id}/preview?token=${encodeURIComponent(grant.token)}`
  const data = { preview_url: previewUrl, expires: formatDate(grant.expires, deps.timeZone) }
  return ok(envelope(ctx.info, ctx.route.endpoint, data), { 'cache-control': PRIVATE_NO_STORE })
}

/**
 * GET /objects/{object_id}/preview?token=…: the single read by the token's writer, drafts included; never
 * cached. The auth service trades the token for the writer's access as it is now (refused once the writer
 * is deleted or disabled); the objects service reads with that access, checking it may still write the
 * object. One call to each, as GET /me.
 */
export const readPreview: Handler = async (ctx, deps) => {
  const token = ctx.info.query.get('token')
  if (token === null || token === '') throw new HttpError('PREVIEW_TOKEN_INVALID', 'a preview needs the token of its URL', { parameter: 'token' })
  const options = callOptions(ctx)
  const writer = await deps.clients.auth.ExchangePreviewToken({ token }, options)
  const { object, included } = await deps.clients.objects.GetPreview({
    object_id: routeParams(ctx, 'objectId').objectId, token, query: listParams(ctx).query,
  }, { ...options, userToken: writer.access_token })
  if (!object) throw new Error('GetPreview answered without an object')
  const fc = formatContext(ctx, deps)
  const [shown] = withIncluded([formatObject(object, fc)], included, fc)
  return ok(envelope(ctx.info, ctx.route.endpoint, { object: shown }), { 'cache-control': PRIVATE_NO_STORE })
}
