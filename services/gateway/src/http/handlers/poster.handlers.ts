import { envelope } from '../envelope.js'
import { HttpError } from '../errors.js'
import { baseUrl, callOptions, ok, type Handler } from '../context.js'

export const DEFAULT_POSTER_SIZE = { width: 130, height: 85 }
const DIMENSION = /^[1-9][0-9]{0,3}$/

/** `width`/`height`: integers 1–4096; absent → 0 when the other one is given (aspect ratio kept). */
export function posterSize (query: URLSearchParams): { width: number, height: number } {
  const read = (name: 'width' | 'height') => {
    const all = query.getAll(name)
    if (all.length === 0) return undefined
    const raw = all[0]!
    if (all.length > 1 || !DIMENSION.test(raw) || Number(raw) > 4096) {
      throw new HttpError(400, 'INVALID_PARAMETER', `${name} must be an integer from 1 to 4096`, { parameter: name })
    }
    return Number(raw)
  }
  const width = read('width')
  const height = read('height')
  if (width === undefined && height === undefined) return { ...DEFAULT_POSTER_SIZE }
  return { width: width ?? 0, height: height ?? 0 }
}

export const poster: Handler = async (ctx, deps) => {
  const size = posterSize(ctx.info.query)
  // spec 4.9: the object's own 404/401/403 come first, whatever the poster service can answer
  const target = await deps.clients.objects.GetObject({ caller: ctx.caller, object_id: ctx.route.params.objectId! }, callOptions(ctx))
  if (!target.object) throw new HttpError(404, 'OBJECT_NOT_FOUND', `object "${ctx.route.params.objectId!}" not found`)
  const res = await deps.clients.poster.GetPoster({ caller: ctx.caller, object_id: ctx.route.params.objectId!, ...size }, callOptions(ctx))
  const uri = `${baseUrl(ctx, deps)}/${res.thumbnail_path.replace(/^\/+/, '')}`
  return ok(envelope(ctx.info, 'poster', { id: res.id, uri }))
}
