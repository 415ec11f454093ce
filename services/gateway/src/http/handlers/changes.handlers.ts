import type { Caller } from '@content/platform'
import { formatPosition } from '../../live/live-frames.js'
import type { LiveHub, Opener } from '../../live/live-hub.js'
import { parseLiveParams } from '../../live/live-params.js'
import { resolveReferences } from '../../live/live-references.js'
import { referenceLookup } from '../../live/reference-lookup.js'
import { envelope } from '../envelope.js'
import { HttpError } from '../errors.js'
import { callOptions, ok, requireCaller, type Handler, type HandlerDeps, type RequestContext } from '../context.js'

/**
 * The position a stream opened from now starts at: a client cut before the first event resumes from it
 * (an `id:` frame without data would give an EventSource one, but parsers commonly take it for an event).
 */
export const STREAM_POSITION_HEADER = 'X-Last-Event-ID'

/** The headers of a stream: never cached, never buffered by a proxy (nginx reads X-Accel-Buffering). */
const STREAM_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' }

/**
 * GET /changes (decisions §17): the parameters are checked before anything opens; the caller is the
 * access token's (anonymous without one), counted per user or, anonymous, per client address. The
 * stream resumes after Last-Event-ID (what an EventSource sends on reconnecting), else after `after`.
 */
export const openChanges: Handler = async (ctx, deps) => {
  const request = parseLiveParams(ctx.info.query)
  const hub = deps.live
  if (hub === undefined) throw new HttpError('SERVICE_UNAVAILABLE', 'live changes are off on this gateway')
  // refused before a ticket is used up or a reference resolved: a full gateway leaves the ticket to another
  hub.admit(request.ticket === null ? callerKey(ctx, ctx.caller) : null)
  const who = request.ticket === null
    ? opener(ctx, request, { caller: ctx.caller, session: ctx.claims?.session ?? '' })
    : await ticketHolder(ctx, deps, hub, request.ticket, request.drafts)
  if (ctx.head) {
    hub.check(who)
    return { status: 200, headers: STREAM_HEADERS, bytes: Buffer.alloc(0) }
  }
  const lookup = referenceLookup({
    resolveAccess: (refs) => deps.clients.objects.ResolveAccess({ refs }, callOptions(ctx)),
    getObject: (ref) => deps.clients.objects.GetObject({ object_id: ref }, callOptions(ctx)),
  })
  const params = await resolveReferences(request, lookup, (access) => hub.mayRead(access, who.viewer))
  const lastEventId = ctx.headers['last-event-id']
  const after = typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : params.after
  const stream = hub.open(who, params, after)
  const at = after === null ? stream.position : null
  return { status: 200, headers: at === null ? STREAM_HEADERS : { ...STREAM_HEADERS, [STREAM_POSITION_HEADER.toLowerCase()]: formatPosition(at) }, bytes: stream.out }
}

/** Who a stream opens for: its caller's rights, the key its bound counts against, its login. */
const opener = (ctx: RequestContext, request: { drafts: boolean }, { caller, session }: { caller: Caller, session: string }): Opener => ({
  viewer: { userId: caller.user_id, groups: caller.groups, mayWrite: caller.may_write, drafts: request.drafts },
  key: callerKey(ctx, caller),
  session,
  userId: caller.user_id,
})

/**
 * The caller a ticket was issued to. A HEAD looks at the ticket without using it. A GET uses it in one
 * call, but while some caller of this gateway is at its bound it first looks, so that a 429 leaves the
 * ticket for a retry (only a stream of the same caller opened in between can still make it one).
 */
async function ticketHolder (ctx: RequestContext, deps: HandlerDeps, hub: LiveHub, ticket: string, drafts: boolean): Promise<Opener> {
  const look = ctx.head || hub.callerFull
  const named = opener(ctx, { drafts }, await redeem(ctx, deps, ticket, look))
  if (ctx.head || !look) return named
  hub.check(named)
  return opener(ctx, { drafts }, await redeem(ctx, deps, ticket, false))
}

/** Whom the per-caller bound counts a stream against: its user, or its client address when anonymous. */
const callerKey = (ctx: RequestContext, caller: Caller): string => (caller.user_id === 0 ? `address:${ctx.clientAddress}` : `user:${caller.user_id}`)

/** The caller a ticket was issued to, the ticket used up (in the auth service: once across every gateway) unless `keep`. */
async function redeem (ctx: RequestContext, deps: HandlerDeps, ticket: string, keep: boolean): Promise<{ caller: Caller, session: string }> {
  if (ctx.claims) throw new HttpError('INVALID_PARAMETER', 'ticket: a stream opens with a ticket or with a token, not both', { parameter: 'ticket' })
  const redeemed = await deps.clients.auth.RedeemStreamTicket({ ticket, keep }, callOptions(ctx))
  const c = redeemed.caller
  if (!c) throw new Error('RedeemStreamTicket answered without a caller')
  return { caller: { user_id: Number(c.user_id), groups: c.groups, may_write: c.may_write }, session: redeemed.session }
}

/** POST /changes/tickets (decisions §17): a single-use ticket, valid 60 s, for an EventSource, which cannot send the token. */
export const issueTicket: Handler = async (ctx, deps) => {
  const claims = requireCaller(ctx)
  const t = await deps.clients.auth.IssueStreamTicket({ session: claims.session ?? '' }, callOptions(ctx))
  return ok(envelope(ctx.info, ctx.route.endpoint, { ticket: t.ticket, expires_in: t.expires_in }), { 'cache-control': 'no-store' })
}
