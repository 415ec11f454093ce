import { choosePoster } from '../core/poster-choice.js'
import { signPath } from '../core/signatures.js'
import { fitSize, requestedSize, thumbnailExt, thumbnailPath, type RequestedSize, type ThumbnailTarget } from '../core/thumbnail-spec.js'
import type { CallContext } from '../core/types.js'
import type { ServiceDeps } from './deps.js'

export interface PosterAnswer {
  id: number
  thumbnail_path: string
}

/**
 * GET /poster/{id} (spec 4.9, decisions §8): the object's read check first (the objects service), then
 * the size, the choice, and a signed thumbnail path. Nothing is rendered here: the URL is.
 */
export async function getPoster (deps: ServiceDeps, objectId: string, width: string | undefined, height: string | undefined, ctx: CallContext):
Promise<PosterAnswer> {
  const subject = await deps.objects.getMedia(objectId, true, ctx)
  const wanted = requestedSize(width, height)
  const choice = choosePoster(subject)
  if (choice.kind === 'placeholder') return placeholder(deps, choice.id, wanted)
  const { image } = choice
  if ((await deps.store.originals.stat(image.file.key)) === null) return placeholder(deps, image.id, wanted)
  const aspect = { width: image.file.width, height: image.file.height }
  const target: ThumbnailTarget = { kind: 'image', key: image.file.key, size: fitSize(wanted, aspect), ext: thumbnailExt(image.file.mime_type) }
  return { id: image.id, thumbnail_path: signed(deps, target, !image.free_access) }
}

function placeholder (deps: ServiceDeps, id: number, wanted: RequestedSize): PosterAnswer {
  return { id, thumbnail_path: signed(deps, { kind: 'placeholder', size: fitSize(wanted, null) }, false) }
}

/** `thumbnails/{path}?sig=…`, or `?expires=…&sig=…` for a protected image (the URL stops working then). */
function signed (deps: ServiceDeps, target: ThumbnailTarget, expiring: boolean): string {
  const path = thumbnailPath(target)
  const expires = expiring ? String(Math.floor(deps.now() / 1000) + deps.settings.thumbnailUrlTtl) : ''
  const sig = signPath(deps.settings.signingKey, path, expires)
  return `thumbnails/${path}?${expires === '' ? '' : `expires=${expires}&`}sig=${sig}`
}
