import { envelope } from '../envelope.js'
import { baseUrl, callOptions, ok, type Handler } from '../context.js'

/** A raw query value as the poster service takes it: absent when the query has none, else as sent. */
function raw (query: URLSearchParams, name: 'width' | 'height'): { width?: string } | { height?: string } {
  const value = query.get(name)
  return value === null ? {} : { [name]: value }
}

/**
 * GET /poster/{id}: one call. The poster service checks the object's read rights and the raw
 * `width`/`height` (decisions §8), chooses the image and signs the thumbnail's path.
 */
export const poster: Handler = async (ctx, deps) => {
  const query = ctx.info.query
  const res = await deps.clients.poster.GetPoster({
    object_id: ctx.params.objectId ?? '', ...raw(query, 'width'), ...raw(query, 'height'),
  }, callOptions(ctx))
  const uri = `${baseUrl(ctx, deps)}/${res.thumbnail_path.replace(/^\/+/, '')}`
  return ok(envelope(ctx.info, 'poster', { id: res.id, uri }))
}
