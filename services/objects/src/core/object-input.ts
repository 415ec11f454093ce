import { OWN_FIELD_DEFAULTS, type OwnFields, type objectFieldShape } from '@content/api-schema'
import type { z } from 'zod'
import type { ObjectTypeName } from './object-types.js'
import type { IdempotencyClaim } from './idempotency.js'
import type { GmapsLookats, MediaFileRecord, ObjectRecord, Status } from './types.js'

/** Columns of an object's row that writes set; `file` only from an upload or a fixtures file, never from input. */
export type WritableColumns = OwnFields & Pick<ObjectRecord, 'file'>

export interface GeoTagInput {
  title: string
  address: string
  latitude: number
  longitude: number
  gmaps_lookats: GmapsLookats | null
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
  /** decisions §16: a write's `?status=` (absent: unchanged) */
  status?: Status
  columns: Partial<WritableColumns>
  user_id: number
  extras: ObjectExtras
  links?: ObjectLinks
  claim?: UploadClaim
  /** recorded with the outcome in the write's transaction (only when the object was there to update) */
  idempotency?: IdempotencyClaim
}

export const DEFAULT_COLUMNS: WritableColumns = { ...OWN_FIELD_DEFAULTS, file: null }

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
