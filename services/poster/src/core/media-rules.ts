import type { MediaTypeName } from '@content/api-schema'
import { DomainError } from '@content/platform'

export { isMediaType } from '@content/api-schema'
export type MediaType = MediaTypeName

/** MIME types each object type takes; b_e_file takes any well-formed one. */
export const ALLOWED_TYPES: Readonly<Record<Exclude<MediaType, 'b_e_file'>, readonly string[]>> = {
  image: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'image/tiff'],
  video: ['video/mp4', 'video/webm', 'video/ogg', 'video/quicktime', 'video/x-matroska'],
  audio: [
    'audio/mpeg', 'audio/ogg', 'audio/wav', 'audio/x-wav', 'audio/vnd.wave', 'audio/flac', 'audio/x-flac',
    'audio/mp4', 'audio/x-m4a', 'audio/aac', 'audio/webm',
  ],
}

/**
 * Names of one byte format. Magic bytes tell the container, not always the name a client uses: an
 * audio-only WebM or MP4 is recognised as video, an Ogg Opus file as audio/ogg, a WAV as audio/wav.
 */
const SAME_FORMAT: readonly (readonly string[])[] = [
  ['image/jpeg', 'image/jpg', 'image/pjpeg'],
  ['image/png', 'image/apng'],
  ['audio/wav', 'audio/x-wav', 'audio/vnd.wave', 'audio/wave'],
  ['audio/flac', 'audio/x-flac'],
  ['audio/mp4', 'audio/x-m4a', 'video/mp4'],
  ['audio/ogg', 'video/ogg', 'audio/opus', 'application/ogg'],
  ['audio/webm', 'video/webm'],
  ['audio/aac', 'audio/x-aac'],
  ['audio/mpeg', 'audio/mp3'],
  ['video/x-matroska', 'video/matroska'],
  ['application/zip', 'application/x-zip-compressed'],
  ['application/xml', 'text/xml'],
]

const formatOf = (mime: string): readonly string[] => SAME_FORMAT.find((names) => names.includes(mime)) ?? [mime]

/** Two MIME type names of the same byte format. */
export const sameFormat = (a: string, b: string): boolean => a === b || formatOf(a).includes(b)

/** RFC 6838 restricted names. */
const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/

/** A well-formed (normalised) `type/subtype`. */
export const isMimeType = (mime: string): boolean => MIME_TYPE.test(mime)

/** `Content-Type` as kept: lower-case, parameters and surrounding blanks dropped ('' when absent). */
export function normaliseMimeType (raw: string): string {
  return (raw.split(';')[0] ?? '').trim().toLowerCase()
}

/** Why a (normalised) MIME type cannot be stored for this object type, or null. */
export function mimeTypeProblem (objectType: MediaType, mime: string): string | null {
  if (mime === '') return 'is required (Content-Type)'
  if (!MIME_TYPE.test(mime)) return `"${mime.slice(0, 80)}" is not a MIME type "type/subtype"`
  if (objectType === 'b_e_file') return null
  const allowed = ALLOWED_TYPES[objectType]
  return allowed.includes(mime) ? null : `${mime} is not taken by ${objectType}: one of ${allowed.join(', ')}`
}

/**
 * The sniff agreement rule: when the bytes are recognised (`detected`), they must be the claimed format;
 * when they are not, the claimed type must not be one that magic bytes would have recognised.
 */
export function sniffProblem (claimed: string, detected: string | null, recognisable: ReadonlySet<string>): string | null {
  if (detected !== null) {
    const found = normaliseMimeType(detected)
    return sameFormat(claimed, found) ? null : `the bytes are ${found}, not ${claimed}`
  }
  return formatOf(claimed).some((name) => recognisable.has(name)) ? `the bytes are not ${claimed}` : null
}

/** UPLOAD_TYPE_INVALID (415) naming the problem. */
export const typeInvalid = (why: string): DomainError =>
  new DomainError('UPLOAD_TYPE_INVALID', `the file's type is not acceptable: ${why}`, { mime_type: why })

const INLINE = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'text/plain'])

/** Safe to display in a browser (decisions §12); anything else is served as a download. */
export const isInline = (mime: string): boolean => INLINE.has(mime) || mime.startsWith('video/') || mime.startsWith('audio/')
