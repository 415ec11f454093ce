import type { Method } from '../../routing/defaults.js'
import { ok, type Handler } from '../context.js'
import { envelope } from '../envelope.js'
import { HttpError } from '../errors.js'

/** A custom endpoint: the module registered under its name answers, with the methods it declares. */
export const custom: Handler = async (ctx, deps) => {
  const mod = deps.customs.get(ctx.route.endpoint)
  const method = ctx.info.method.toUpperCase() === 'HEAD' ? 'GET' : ctx.info.method.toUpperCase() as Method
  const handler = mod && ('all' in mod ? mod.all : mod.methods[method])
  if (!handler) throw new HttpError('METHOD_NOT_ALLOWED', `${method} is not allowed here`)
  const data = await handler({ method, segments: ctx.params.rest ?? [], query: ctx.info.query, body: ctx.body, caller: ctx.caller })
  return ok(envelope(ctx.info, ctx.route.endpoint, data ?? null))
}
