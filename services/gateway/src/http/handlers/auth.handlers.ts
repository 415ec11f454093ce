import { toTransportError } from '@content/platform'
import { envelope } from '../envelope.js'
import { HttpError } from '../errors.js'
import { formatDate } from '../formatters/dates.js'
import { formatObject } from '../formatters/object.js'
import { callOptions, formatContext, noContent, ok, routeParams, requireCaller, type Handler, type RequestContext } from '../context.js'

const MAX_FIELD = 4096
const NO_STORE = { 'cache-control': 'no-store' }

/** A required string field of the POST /auth body. */
function field (body: Record<string, unknown>, name: string): string {
  const value = body[name]
  if (value === undefined || value === null || value === '') throw new HttpError('MISSING_PARAMETER', `${name} is required`, { parameter: name })
  if (typeof value !== 'string') throw new HttpError('INVALID_PARAMETER', `${name} must be a string`, { parameter: name })
  if (value.length > MAX_FIELD) throw new HttpError('INVALID_PARAMETER', `${name} is too long`, { parameter: name })
  return value
}

function authBody (ctx: RequestContext): Record<string, unknown> {
  const body = ctx.body
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError('MISSING_PARAMETER', 'the request body must be a JSON object')
  }
  return body as Record<string, unknown>
}

/** POST /auth: password grant (default) or refresh grant. */
export const login: Handler = async (ctx, deps) => {
  const body = authBody(ctx)
  const grant = body.grant_type ?? 'password'
  let pair: Awaited<ReturnType<typeof deps.clients.auth.Login>>
  if (grant === 'password') {
    const username = field(body, 'username')
    const password = field(body, 'password')
    pair = await deps.clients.auth.Login({ username, password, client_address: ctx.clientAddress }, callOptions(ctx))
  } else if (grant === 'refresh_token') {
    pair = await deps.clients.auth.Refresh({ refresh_token: field(body, 'refresh_token') }, callOptions(ctx))
  } else {
    throw new HttpError('INVALID_PARAMETER', 'grant_type must be "password" or "refresh_token"', { parameter: 'grant_type' })
  }
  const data = { access_token: pair.access_token, expires_in: pair.expires_in, refresh_token: pair.refresh_token }
  return ok(envelope(ctx.info, 'auth', data), NO_STORE)
}

/** GET /auth: the presented token and its remaining lifetime, computed locally. */
export const tokenStatus: Handler = async (ctx, deps) => {
  const claims = requireCaller(ctx)
  const expiresIn = Math.max(0, Math.floor(claims.exp - deps.now() / 1000))
  // private (decisions §10: a read made with a token) and never stored, as it holds the token
  return ok(envelope(ctx.info, 'auth', { access_token: ctx.token, expires_in: expiresIn }), { 'cache-control': 'private, no-store' })
}

export const revoke: Handler = async (ctx, deps) => {
  requireCaller(ctx)
  await deps.clients.auth.Revoke({ refresh_token: routeParams(ctx, 'refreshToken').refreshToken }, callOptions(ctx))
  return noContent()
}

/** GET /me: the user, plus the card object when the user has one (omitted when it cannot be found). */
export const me: Handler = async (ctx, deps) => {
  const claims = requireCaller(ctx)
  const user = await deps.clients.auth.GetUser({ user_id: claims.userId }, callOptions(ctx))
  const data: Record<string, unknown> = {
    user: {
      id: user.id, username: user.username, name: user.name, email: user.email,
      groups: [...(user.groups ?? [])], created: formatDate(user.created, deps.timeZone),
    },
  }
  if (user.card_id) {
    try {
      const res = await deps.clients.objects.GetObject({ object_id: String(user.card_id) }, callOptions(ctx))
      if (res.object) data.object = formatObject(res.object, formatContext(ctx, deps))
    } catch (err) {
      if (toTransportError(err).httpStatus !== 404) throw err
    }
  }
  return ok(envelope(ctx.info, 'me', data))
}
