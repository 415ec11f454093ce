import { DomainError } from '@content/platform'
import { rangeApplies, resolveRange, type RangeRequest } from '../core/byte-range.js'
import { isInline, isMimeType } from '../core/media-rules.js'
import { isContentKey, type CallContext } from '../core/types.js'
import type { ByteSpan } from '../store/media.store.js'
import { inChunks, type FileAnswer, type ServiceDeps } from './deps.js'

export interface OriginalRequest extends RangeRequest {
  object_id: string
  file_name: string
  if_range: string
  head: boolean
}

const fileNotFound = () => new DomainError('FILE_NOT_FOUND', 'the object has no file of this name')

/**
 * GET /media/{object_id}/{file_name} (decisions §12): the objects service checks the caller's read
 * rights; the name must be the file's current one (an old URL of a replaced file is a 404).
 */
export async function getOriginal (deps: ServiceDeps, req: OriginalRequest, ctx: CallContext): Promise<FileAnswer> {
  const { object } = await deps.objects.getMedia(req.object_id, false, ctx)
  const file = object.file
  if (file === null || !isContentKey(file.key) || file.name !== req.file_name) throw fileNotFound()
  const stored = await deps.store.originals.stat(file.key)
  if (stored === null) throw fileNotFound()
  const etag = `"${file.key}"`
  const span = spanOf(req, etag, stored.size)
  const mime = isMimeType(file.mime_type) ? file.mime_type : 'application/octet-stream'
  const header: FileAnswer['header'] = {
    mime_type: mime,
    size: span === null ? stored.size : span.end - span.start + 1,
    total_size: stored.size,
    etag,
    public: object.free_access,
    immutable: false,
    expires_at: 0,
    file_name: file.name,
    inline: isInline(mime),
    ...(span === null ? {} : { range_start: span.start }),
  }
  if (req.head) return { header, body: null }
  const bytes = await deps.store.originals.open(file.key, span ?? undefined)
  if (bytes === null) throw fileNotFound()
  return { header, body: inChunks(bytes) }
}

/** The span a Range asks for (null: the whole file); 416 for a range past the end. */
function spanOf (req: OriginalRequest, etag: string, size: number): ByteSpan | null {
  if (!rangeApplies(req.if_range, etag)) return null
  const range = resolveRange(req, size)
  if (range.kind === 'full') return null
  if (range.kind === 'unsatisfiable') {
    throw new DomainError('RANGE_NOT_SATISFIABLE', `the range is outside the file's ${size} bytes`, { total_size: size })
  }
  return { start: range.start, end: range.end }
}
