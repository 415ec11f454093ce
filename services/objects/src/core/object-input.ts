import { z } from 'zod'
import { parseIsoDate } from './dates.js'
import type { ObjectTypeName } from './object-types.js'
import { windowProblem } from './object-rules.js'
import type { IdempotencyClaim } from './idempotency.js'
import type { MediaFileRecord, ObjectRecord, Status } from './types.js'

/** Columns of an object's row that writes set; `file` only from an upload or a fixtures file, never from input. */
export type WritableColumns = Pick<ObjectRecord,
  'title' | 'description' | 'subject' | 'abstract' | 'body' | 'note' | 'lang' | 'rights' | 'license' |
  'creator' | 'publisher' | 'comments' | 'valid' | 'start_date' | 'end_date' | 'publication_date' | 'file'>

export interface GeoTagInput {
  title: string
  address: string
  latitude: number
  longitude: number
  gmaps_lookats: { zoom: number, map_type: string, latitude: number, longitude: number, range: number } | null
}

/** The parts of an object outside its row; an absent key leaves that part as it is. */
export interface ObjectExtras {
  languages?: Record<string, Record<string, string>>
  custom_properties?: Record<string, string>
  geo_tags?: GeoTagInput[]
  tags?: string[]
  categories?: string[]
  date_items?: { start_date: number | null, end_date: number | null, days: number[] }[]
}

/** Tree and relation links written in the same transaction as the object. */
export interface ObjectLinks {
  parents: number[]
  relations: { name: string, inverse: string, related_id: number, priority: number | null, params: string | null }[]
}

/**
 * The pending upload a write attaches: the store deletes its unexpired row in the write's transaction,
 * or refuses the whole write with UploadClaimConflict.
 */
export interface UploadClaim {
  token_hash: string
  now: number
}

export interface ObjectWrite {
  object_type: ObjectTypeName
  /** null = generate from the title */
  nickname: string | null
  status: Status
  columns: WritableColumns
  read_groups: string[]
  write_groups: string[]
  user_id: number
  extras: ObjectExtras
  links?: ObjectLinks
  claim?: UploadClaim
  /** recorded with the outcome in the write's transaction */
  idempotency?: IdempotencyClaim
}

export interface ObjectPatch {
  nickname?: string
  columns: Partial<WritableColumns>
  user_id: number
  extras: ObjectExtras
  links?: ObjectLinks
  claim?: UploadClaim
  /** recorded with the outcome in the write's transaction (only when the object was there to update) */
  idempotency?: IdempotencyClaim
}

export const DEFAULT_COLUMNS: WritableColumns = {
  title: null, description: null, subject: null, abstract: null, body: null, note: null,
  lang: 'en', rights: '', license: '', creator: '', publisher: '', comments: 'off', valid: true,
  start_date: null, end_date: null, publication_date: null, file: null,
}

export const isoDate = z.string().transform((text, ctx) => {
  const ms = parseIsoDate(text)
  if (ms === null) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date-time with a zone (Z, +hhmm or +hh:mm)' })
    return z.NEVER
  }
  return ms
})

const text = z.string().max(1_000_000).nullable()
const shortText = z.string().max(10_000)

const gmaps = z.object({
  zoom: z.number().int().default(0),
  mapType: z.string().default(''),
  latitude: z.number().default(0),
  longitude: z.number().default(0),
  range: z.number().default(0),
}).strict().transform((g) => ({ zoom: g.zoom, map_type: g.mapType, latitude: g.latitude, longitude: g.longitude, range: g.range }))

const geoTag = z.object({
  title: z.string().default(''),
  address: z.string().default(''),
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  gmaps_lookats: gmaps.nullable().default(null),
}).strict()

const dateItem = z.object({
  start_date: isoDate.nullable().default(null),
  end_date: isoDate.nullable().default(null),
  days: z.array(z.number().int().min(0).max(6)).default([])
    .transform((days) => [...new Set(days)].sort((a, b) => a - b)),
}).strict().superRefine((d, ctx) => {
  const problem = windowProblem(d.start_date, d.end_date)
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, path: ['end_date'] })
})

/** Field schemas shared by fixtures and SaveObject (spec 2.3 / 2.11). */
export const objectFieldShape = {
  title: text.optional(),
  description: text.optional(),
  subject: text.optional(),
  abstract: text.optional(),
  body: text.optional(),
  note: text.optional(),
  nickname: z.string().optional(),
  lang: z.string().max(16).optional(),
  rights: shortText.optional(),
  license: shortText.optional(),
  creator: shortText.optional(),
  publisher: shortText.optional(),
  comments: shortText.optional(),
  valid: z.boolean().optional(),
  start_date: isoDate.nullable().optional(),
  end_date: isoDate.nullable().optional(),
  publication_date: isoDate.nullable().optional(),
  custom_properties: z.record(z.string().min(1), z.union([z.string(), z.number(), z.boolean()]).transform(String)).optional(),
  languages: z.record(z.string().min(1).max(16), z.record(z.string().min(1), z.string())).optional(),
  geo_tags: z.array(geoTag).optional(),
  tags: z.array(z.string().min(1).max(255)).optional(),
  categories: z.array(z.string().min(1).max(255)).optional(),
  date_items: z.array(dateItem).optional(),
}

/** Parsed fields; `file` only where the schema takes one (fixtures). */
type ParsedFields = z.infer<z.ZodObject<typeof objectFieldShape>> & { file?: MediaFileRecord | null | undefined }

const COLUMN_KEYS = Object.keys(DEFAULT_COLUMNS) as (keyof WritableColumns)[]
const EXTRA_KEYS = ['languages', 'custom_properties', 'geo_tags', 'tags', 'categories', 'date_items'] as const

/** Splits parsed fields into row columns (only those present) and extras. */
export function splitFields (fields: ParsedFields): { columns: Partial<WritableColumns>, extras: ObjectExtras } {
  const columns: Record<string, unknown> = {}
  for (const key of COLUMN_KEYS) if (fields[key] !== undefined) columns[key] = fields[key]
  const extras: Record<string, unknown> = {}
  for (const key of EXTRA_KEYS) if (fields[key] !== undefined) extras[key] = fields[key]
  return { columns: columns as Partial<WritableColumns>, extras: extras as ObjectExtras }
}
