import { fileNameProblem } from '@content/api-schema'
import { z } from 'zod'
import type { MediaFileRecord } from './types.js'

/** A content key: the lower-case hex SHA-256 of the bytes, as the poster service names what it stores. */
export const isFileKey = (value: string): boolean => /^[0-9a-f]{64}$/.test(value)

const INT32_MAX = 2_147_483_647
/** `type/subtype` with RFC 6838 restricted names. */
const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i

const dimension = z.number().int().min(0).max(INT32_MAX).default(0)

/**
 * A file as another process describes it (the poster service's RegisterUpload, a fixtures file the
 * admin tool filled in): hostile until every field is checked.
 */
export const mediaFileSchema = z.object({
  key: z.string().refine(isFileKey, 'must be 64 lower-case hex digits (a SHA-256)'),
  name: z.string().superRefine((name, ctx) => {
    const problem = fileNameProblem(name)
    if (problem) ctx.addIssue({ code: 'custom', message: problem })
  }),
  mime_type: z.string().regex(MIME_TYPE, 'must be a MIME type "type/subtype"'),
  size: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  width: dimension,
  height: dimension,
}).strict()

/**
 * A file as a store holds it, or null when the value is not a file of the current shape: rows written
 * before files had content keys read back as objects without a file.
 */
export function storedFile (value: unknown): MediaFileRecord | null {
  if (typeof value !== 'object' || value === null) return null
  const f = value as Record<string, unknown>
  if (typeof f.key !== 'string' || !isFileKey(f.key) || typeof f.name !== 'string' || typeof f.mime_type !== 'string' ||
    typeof f.size !== 'number') return null
  const dim = (v: unknown) => (typeof v === 'number' ? v : 0)
  return { key: f.key, name: f.name, mime_type: f.mime_type, size: f.size, width: dim(f.width), height: dim(f.height) }
}

/** A stored JSON text of a file (SQLite), read as tolerantly as `storedFile`. */
export function storedFileJson (text: string | null): MediaFileRecord | null {
  if (text === null) return null
  try {
    return storedFile(JSON.parse(text))
  } catch {
    return null
  }
}
