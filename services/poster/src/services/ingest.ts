import { createHash, randomUUID } from 'node:crypto'
import { open, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { DomainError } from '@content/platform'
import { mimeTypeProblem, sniffProblem, typeInvalid, type MediaType } from '../core/media-rules.js'
import type { MediaFile } from '../core/types.js'
import { recognisableTypes, sniffFile } from '../media/sniff.js'
import type { ServiceDeps } from './deps.js'
import { countUpload } from './stats.js'

export const tooLarge = (maxBytes: number) => new DomainError('UPLOAD_MAX_FILESIZE_EXCEEDED',
  `the file is larger than ${maxBytes} bytes`, { max_bytes: maxBytes })

/** What an upload says about the file, checked before its bytes are read. */
export interface FileClaim {
  objectType: MediaType
  name: string
  /** the normalised MIME type, or null for an import that lets magic bytes decide */
  mimeType: string | null
}

/**
 * The byte half of an upload (decisions §12): stage the body to a file while counting and hashing it,
 * then check it (empty, magic bytes, pixels, a full decode) and store it under its content key. The
 * staged file is always removed; nothing reaches the store unless every check passed.
 */
export async function ingest (deps: ServiceDeps, claim: FileClaim, body: AsyncIterable<Buffer>, signal: AbortSignal): Promise<MediaFile> {
  const { uploading, settings, store } = deps
  if (uploading.active >= settings.uploadConcurrency) {
    throw new DomainError('UPLOAD_BUSY', 'too many uploads at once; try again shortly', { retry_after: 1 })
  }
  uploading.active++
  const staged = join(store.originals.stagingDir, `${randomUUID()}.upload`)
  try {
    const { key, size } = await stage(settings.uploadMaxBytes, body, staged)
    if (size === 0) throw new DomainError('UPLOAD_EMPTY', 'the upload has no bytes')
    const mimeType = await checkType(claim, staged)
    const shown = claim.objectType === 'image' ? await checkImage(deps, staged) : { width: 0, height: 0 }
    signal.throwIfAborted() // a caller gone during the checks gets nothing stored
    await store.originals.put(key, staged, { mime_type: mimeType })
    countUpload(deps.stats, size)
    return { key, name: claim.name, mime_type: mimeType, size, ...shown }
  } finally {
    uploading.active--
    await rm(staged, { force: true })
  }
}

/** Streams the body into `path`, hashing and counting: 413 the moment the count passes `max`. */
async function stage (max: number, body: AsyncIterable<Buffer>, path: string): Promise<{ key: string, size: number }> {
  const hash = createHash('sha256')
  let size = 0
  const handle = await open(path, 'wx')
  try {
    for await (const chunk of body) {
      size += chunk.length
      if (size > max) throw tooLarge(max)
      hash.update(chunk)
      await handle.write(chunk)
    }
    await handle.sync()
  } finally {
    await handle.close()
  }
  return { key: hash.digest('hex'), size }
}

/** The magic bytes must agree with the claimed type; an import without a type takes theirs. */
async function checkType (claim: FileClaim, path: string): Promise<string> {
  const detected = await sniffFile(path)
  if (claim.mimeType !== null) {
    const problem = sniffProblem(claim.mimeType, detected, recognisableTypes)
    if (problem !== null) throw typeInvalid(problem)
    return claim.mimeType
  }
  const found = detected ?? (claim.objectType === 'b_e_file' ? 'application/octet-stream' : null)
  if (found === null) throw typeInvalid('the bytes are of no type magic bytes recognise')
  const problem = mimeTypeProblem(claim.objectType, found)
  if (problem !== null) throw typeInvalid(problem)
  return found
}

/** The pixel limit from the header (no decode), then a full decode, in a render slot. */
async function checkImage (deps: ServiceDeps, path: string): Promise<{ width: number, height: number }> {
  const { imaging, gate, settings } = deps
  const probe = await imaging.probe(path).catch(() => { throw typeInvalid('the image does not decode') })
  if (probe.pixels > settings.uploadMaxPixels) {
    throw new DomainError('IMAGE_TOO_LARGE', `the image has more than ${settings.uploadMaxPixels} pixels`,
      { pixels: probe.pixels, max_pixels: settings.uploadMaxPixels })
  }
  try {
    await gate.run(null, () => imaging.verifyDecodes(path), 'UPLOAD_BUSY')
  } catch (err) {
    if (err instanceof DomainError) throw err
    throw typeInvalid('the image does not decode')
  }
  return { width: probe.width, height: probe.height }
}
