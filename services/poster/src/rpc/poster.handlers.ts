import { DomainError, type ServiceImpl } from '@content/platform'
import type { v1 } from '@content/protos'

const notYet = (what: string) => new DomainError('UNIMPLEMENTED', 'NOT_IMPLEMENTED', `${what} is not implemented yet`)

/**
 * Thumbnails are not built yet: both RPCs say so with UNIMPLEMENTED (HTTP 501) rather than
 * inventing a URL that serves nothing.
 */
export function posterHandlers (): ServiceImpl<v1.PosterServiceHandlers> {
  return {
    GetPoster: async () => { throw notYet('the poster endpoint') },
    GetThumbnail: async () => { throw notYet('thumbnail generation') },
  }
}
