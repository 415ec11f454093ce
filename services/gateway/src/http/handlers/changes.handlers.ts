import { parseLiveParams } from '../../live/live-params.js'
import { HttpError } from '../errors.js'
import type { Handler } from '../context.js'

/** The headers of a stream: never cached, never buffered by a proxy (nginx reads X-Accel-Buffering). */
const STREAM_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' }

/**
 * GET /changes (decisions §17): the parameters are checked before anything opens; the caller is the
 * access token's (anonymous without one), counted per user or, anonymous, per client address. The
 * stream resumes after Last-Event-ID (what an EventSource sends on reconnecting), else after `after`.
 */
export const openChanges: Handler = async (ctx, deps) => {
  const params = parseLiveParams(ctx.info.query)
  const hub = deps.live
  if (hub === undefined) throw new HttpError('SERVICE_UNAVAILABLE', 'live changes are off on this gateway')
  if (params.ticket !== null) throw new HttpError('TOKEN_INVALID', 'the ticket is unknown, used or expired')
  const lastEventId = ctx.headers['last-event-id']
  const after = typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : params.after
  const { caller } = ctx
  const stream = hub.open({
    viewer: { userId: caller.user_id, groups: caller.groups, mayWrite: caller.may_write, drafts: params.drafts },
    key: caller.user_id === 0 ? `address:${ctx.clientAddress}` : `user:${caller.user_id}`,
    session: '',
    userId: caller.user_id,
  }, params, after)
  return { status: 200, headers: STREAM_HEADERS, bytes: stream.out }
}
