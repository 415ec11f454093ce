import { DomainError, present } from '@content/platform'
import { isContentKey, type Size } from './types.js'

export const DEFAULT_SIZE: Size = { width: 130, height: 85 }
export const MAX_SIDE = 4_096
const SIDE = /^[1-9][0-9]{0,3}$/

/** A side as a URL or a query gives it: 1…4096, digits only, no leading zero; else null. */
export function parseSide (raw: string): number | null {
  if (!SIDE.test(raw)) return null
  const n = Number(raw)
  return n <= MAX_SIDE ? n : null
}

/** What `/poster` was asked for: each side or neither. */
export interface RequestedSize {
  width: number | null
  height: number | null
}

/**
 * Raw `width`/`height` query values (undefined when the query has none) → the requested sides; anything
 * else than 1…4096 written plainly (an empty value included) is 400 INVALID_PARAMETER.
 */
export function requestedSize (width: string | undefined, height: string | undefined): RequestedSize {
  const side = (raw: string | undefined, parameter: 'width' | 'height'): number | null => {
    if (raw === undefined) return null
    const n = parseSide(raw)
    if (n === null) {
      throw new DomainError('INVALID_PARAMETER', `${parameter} must be an integer from 1 to ${MAX_SIDE}`, { parameter })
    }
    return n
  }
  return { width: side(width, 'width'), height: side(height, 'height') }
}

const clamp = (n: number) => Math.min(MAX_SIDE, Math.max(1, n))

/**
 * The size rendered: neither side → 130×85; both → that size (cover crop); one → the other from the
 * original's displayed proportions, or 130:85 when they are unknown (placeholders).
 */
export function fitSize (req: RequestedSize, aspect: Size | null): Size {
  const ratio = aspect !== null && aspect.width > 0 && aspect.height > 0 ? aspect : DEFAULT_SIZE
  if (req.width !== null && req.height !== null) return { width: req.width, height: req.height }
  if (req.width !== null) return { width: req.width, height: clamp(Math.round(req.width * ratio.height / ratio.width)) }
  if (req.height !== null) return { width: clamp(Math.round(req.height * ratio.width / ratio.height)), height: req.height }
  return { ...DEFAULT_SIZE }
}

export type ThumbnailExt = 'jpg' | 'png'

/** JPEG originals give JPEG thumbnails, every other type PNG (transparency kept). */
export const thumbnailExt = (mime: string): ThumbnailExt => (mime === 'image/jpeg' ? 'jpg' : 'png')

/** One thumbnail: of an original (by its content key) or the placeholder, at one size. */
export type ThumbnailTarget =
  | { kind: 'image', key: string, size: Size, ext: ThumbnailExt }
  | { kind: 'placeholder', size: Size }

const dims = (s: Size) => `${s.width}x${s.height}`

/** The signed part of a thumbnail URL: `{key}/{w}x{h}.{ext}` or `placeholder/{w}x{h}.png`. */
export function thumbnailPath (t: ThumbnailTarget): string {
  return t.kind === 'image' ? `${t.key}/${dims(t.size)}.${t.ext}` : `placeholder/${dims(t.size)}.png`
}

/** The name under which the thumbnail store keeps it: `{key}-{w}x{h}.{ext}` or `placeholder-{w}x{h}.png`. */
export function storeName (t: ThumbnailTarget): string {
  return t.kind === 'image' ? `${t.key}-${dims(t.size)}.${t.ext}` : `placeholder-${dims(t.size)}.png`
}

const FILE = /^([0-9]+)x([0-9]+)\.(jpg|png)$/

function target (owner: string, file: string): ThumbnailTarget | null {
  const m = FILE.exec(file)
  if (!m) return null
  const width = parseSide(present(m[1], 'the width'))
  const height = parseSide(present(m[2], 'the height'))
  if (width === null || height === null) return null
  const ext = m[3] as ThumbnailExt
  if (owner === 'placeholder') return ext === 'png' ? { kind: 'placeholder', size: { width, height } } : null
  return isContentKey(owner) ? { kind: 'image', key: owner, size: { width, height }, ext } : null
}

/** A thumbnail path of a URL (hostile) → its target, or null when it is not one this service makes. */
export function parseThumbnailPath (path: string): ThumbnailTarget | null {
  const parts = path.split('/')
  return parts.length === 2 ? target(present(parts[0], 'the owner segment'), present(parts[1], 'the file segment')) : null
}

/** A store name → its target, or null. */
export function parseStoreName (name: string): ThumbnailTarget | null {
  const at = name.indexOf('-')
  return at < 0 ? null : target(name.slice(0, at), name.slice(at + 1))
}
