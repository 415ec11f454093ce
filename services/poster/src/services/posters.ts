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
export class Posters {
  constructor (private readonly d: ServiceDeps) {}

  async getPoster (objectId: string, width: string | undefined, height: string | undefined, ctx: CallContext):
  Promise<PosterAnswer> {
    const subject = await this.d.objects.getMedia(objectId, true, ctx)
    const wanted = requestedSize(width, height)
    const choice = choosePoster(subject)
    if (choice.kind === 'placeholder') return this.placeholder(choice.id, wanted)
    const { image } = choice
    if ((await this.d.store.originals.stat(image.file.key)) === null) return this.placeholder(image.id, wanted)
    const aspect = { width: image.file.width, height: image.file.height }
    const target: ThumbnailTarget = { kind: 'image', key: image.file.key, size: fitSize(wanted, aspect), ext: thumbnailExt(image.file.mime_type) }
    return { id: image.id, thumbnail_path: this.signed(target, !image.free_access) }
  }

  private placeholder (id: number, wanted: RequestedSize): PosterAnswer {
    return { id, thumbnail_path: this.signed({ kind: 'placeholder', size: fitSize(wanted, null) }, false) }
  }

  /** `thumbnails/{path}?sig=…`, or `?expires=…&sig=…` for a protected image (the URL stops working then). */
  private signed (target: ThumbnailTarget, expiring: boolean): string {
    const path = thumbnailPath(target)
    const expires = expiring ? String(Math.floor(this.d.now() / 1000) + this.d.settings.thumbnailUrlTtl) : ''
    const sig = signPath(this.d.settings.signingKey, path, expires)
    return `thumbnails/${path}?${expires === '' ? '' : `expires=${expires}&`}sig=${sig}`
  }
}
