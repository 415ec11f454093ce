import { z } from 'zod'
import { parseIsoDate } from './dates.js'
import { bodyJsonSchema, relationItemData } from './write-bodies.js'
import { OWN_FIELDS, withNickname, type FieldKind, type OwnFieldName } from './object-fields.js'

/**
 * The `data` of `POST /objects` (spec 2.11, decisions §1, §4, §12): the one schema of an object write.
 * The objects service validates with it (and fixtures files with its fields); the OpenAPI document's
 * request body is generated from it (`objectWriteJsonSchema`).
 */

/** A period whose end precedes its start cannot be meant (an open end is fine): the problem of `end_date`, or null. */
export const windowProblem = (start: number | null | undefined, end: number | null | undefined): string | null =>
  typeof start === 'number' && typeof end === 'number' && end < start ? 'must not be before start_date' : null

/** ISO 8601 with a zone → epoch milliseconds (decisions §1). */
export const isoDate = z.string().meta({ format: 'date-time' }).transform((text, ctx) => {
  const ms = parseIsoDate(text)
  if (ms === null) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date-time with a zone (Z, +hhmm or +hh:mm)' })
    return z.NEVER
  }
  return ms
})

/** How a write gives a field of each kind (object-fields.ts). */
const BY_KIND = {
  text: z.string().max(1_000_000).nullable(),
  line: z.string().max(10_000),
  lang: z.string().max(16),
  flag: z.boolean(),
  date: isoDate.nullable(),
} satisfies Record<FieldKind, z.ZodType>

type OwnFieldShape = { [F in OwnFieldName]: z.ZodOptional<typeof BY_KIND[typeof OWN_FIELDS[F]['kind']]> } & { nickname: z.ZodOptional<z.ZodString> }
const ownFieldShape = Object.fromEntries(withNickname((f) => BY_KIND[OWN_FIELDS[f].kind].optional(), z.string().optional())) as OwnFieldShape

const gmaps = z.object({
  zoom: z.number().int().default(0),
  mapType: z.string().default(''),
  latitude: z.number().default(0),
  longitude: z.number().default(0),
  range: z.number().default(0),
}).strict()

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
  // weekdays, 0 = Sunday; kept distinct and sorted, so every read shows them so
  days: z.array(z.number().int().min(0).max(6)).default([])
    .transform((days) => [...new Set(days)].sort((a, b) => a - b)),
}).strict().superRefine((d, ctx) => {
  const problem = windowProblem(d.start_date, d.end_date)
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, path: ['end_date'] })
})

/** An object's own fields, shared by `POST /objects` and fixtures files (spec 2.3 / 2.11). */
export const objectFieldShape = {
  ...ownFieldShape,
  // names are keys of indexes (PostgreSQL's hold a few kB): bounded as tags and categories are
  custom_properties: z.record(z.string().min(1).max(255), z.union([z.string(), z.number(), z.boolean()]).transform(String)).optional(),
  languages: z.record(z.string().min(1).max(16), z.record(z.string().min(1).max(255), z.string())).optional(),
  geo_tags: z.array(geoTag).optional(),
  tags: z.array(z.string().min(1).max(255)).optional(),
  categories: z.array(z.string().min(1).max(255)).optional(),
  date_items: z.array(dateItem).optional(),
}

/**
 * Fields the server owns (decisions §4): sending one is a 400 naming it. A media object's file and the
 * fields shown from it (decisions §12) come only from an upload, through `upload_token`.
 */
export const SERVER_OWNED = ['created', 'modified', 'user_created', 'user_modified', 'object_type_id', 'status',
  'permissions', 'authorized', 'free_access', 'children', 'parent_ids', 'relation',
  'file', 'uri', 'name', 'mime_type', 'file_size', 'width', 'height'] as const

/** `data` of `POST /objects`: a create (`object_type`, and `parents` or `relations`) or an update (`id`). */
export const objectWriteData = z.object({
  ...objectFieldShape,
  id: z.union([z.number().int().positive(), z.string().min(1).describe('a nickname')]).optional(),
  object_type: z.string().min(1).optional(),
  parents: z.array(z.number().int().positive()).optional(),
  relations: z.record(z.string(), z.array(relationItemData)).optional(),
  upload_token: z.string().min(1).max(512).optional().describe('from POST /files: attaches the uploaded file'),
}).strict()

/** The JSON Schema of a whole `POST /objects` body, as the OpenAPI document shows it. */
export const objectWriteJsonSchema = (): Record<string, unknown> => bodyJsonSchema(objectWriteData)
