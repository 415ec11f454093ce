import { DomainError } from '@content/platform'
import { checkFileName } from '../core/file-name.js'
import { isMediaType, mimeTypeProblem, normaliseMimeType, typeInvalid, type MediaType } from '../core/media-rules.js'
import type { CallContext, MediaFile } from '../core/types.js'
import type { ServiceDeps } from './deps.js'
import { ingest, tooLarge, type FileClaim } from './ingest.js'
import { readChunks, readHeader, type UploadHeaderIn, type UploadPartIn } from './upload-parts.js'

export interface UploadReceipt {
  upload_token: string
  expires_at: number
  file: MediaFile
}

const takesNoFile = (objectType: string) =>
  new DomainError('TYPE_TAKES_NO_FILE', `"${objectType.slice(0, 80)}" is not an object type that takes a file`)

/**
 * POST /files/{object_type}/{file_name} (decisions §12): authorised by the objects service first; every
 * check that needs no byte comes next, in the documented order; then the bytes are staged and checked;
 * the file is registered as the caller's pending upload last.
 */
export async function upload (deps: ServiceDeps, parts: AsyncIterable<UploadPartIn>, signal: AbortSignal, ctx: CallContext): Promise<UploadReceipt> {
  const stream = parts[Symbol.asyncIterator]()
  const header = await readHeader(stream, signal)
  await deps.objects.authorizeUpload(header.object_type, header.writable_types ?? [], ctx)
  const claim = claimOf(deps, header, false)
  const file = await ingest(deps, claim, readChunks(stream, signal), signal)
  signal.throwIfAborted()
  const ticket = await deps.objects.registerUpload(claim.objectType, file, ctx)
  return { upload_token: ticket.upload_token, expires_at: ticket.expires_at, file }
}

/** The admin tool's ImportFile, for a fixtures file's file: checked as an upload; without a MIME type, magic bytes decide it. */
export async function importFile (deps: ServiceDeps, parts: AsyncIterable<UploadPartIn>, signal: AbortSignal): Promise<MediaFile> {
  const stream = parts[Symbol.asyncIterator]()
  const claim = claimOf(deps, await readHeader(stream, signal), true)
  return ingest(deps, claim, readChunks(stream, signal), signal)
}

/** Object type, file name, declared size, MIME type: in that order, before any byte is read. */
function claimOf (deps: ServiceDeps, header: UploadHeaderIn, typeOptional: boolean): FileClaim {
  const objectType = header.object_type
  if (!isMediaType(objectType)) throw takesNoFile(objectType)
  checkFileName(header.file_name)
  const max = deps.settings.uploadMaxBytes
  if (typeof header.declared_size === 'number' && header.declared_size > max) throw tooLarge(max)
  const mimeType = normaliseMimeType(header.mime_type ?? '')
  if (mimeType === '' && typeOptional) return { objectType, name: header.file_name, mimeType: null }
  checkMimeType(objectType, mimeType)
  return { objectType, name: header.file_name, mimeType }
}

function checkMimeType (objectType: MediaType, mimeType: string): void {
  const problem = mimeTypeProblem(objectType, mimeType)
  if (problem !== null) throw typeInvalid(problem)
}
