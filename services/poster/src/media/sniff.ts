import { fileTypeFromFile, supportedMimeTypes } from 'file-type'
import { normaliseMimeType } from '../core/media-rules.js'

/** The MIME type magic bytes say a file is (normalised), or null when they do not recognise it. */
export async function sniffFile (path: string): Promise<string | null> {
  const found = await fileTypeFromFile(path)
  return found === undefined ? null : normaliseMimeType(found.mime)
}

/** Every type magic bytes can recognise: a claimed one of these must be confirmed by them. */
export const recognisableTypes: ReadonlySet<string> = new Set([...supportedMimeTypes].map(normaliseMimeType))
