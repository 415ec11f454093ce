import { z } from 'zod'
import { describeIssues } from '@content/platform'
import { objectFieldShape, splitFields, type ObjectExtras, type WritableColumns } from './object-input.js'
import { nicknameProblem } from './nickname.js'
import { MAX_PRIORITY } from './write-body.js'

/**
 * Fields the server owns (decisions §4): sending one is a 400 naming it. A media object's file and the
 * fields shown from it (decisions §12) come only from an upload, through `upload_token`.
 */
export const SERVER_OWNED = ['created', 'modified', 'user_created', 'user_modified', 'object_type_id', 'status',
  'permissions', 'authorized', 'free_access', 'children', 'parent_ids', 'relation',
  'file', 'uri', 'name', 'mime_type', 'file_size', 'width', 'height'] as const

const idOrNickname = z.union([z.number().int().positive(), z.string().min(1)])

const relationItem = z.object({
  related_id: z.number().int().positive(),
  params: z.record(z.string(), z.unknown()).nullable().optional(),
  // the same bounds as the items of the relation endpoints
  priority: z.number().int().min(0).max(MAX_PRIORITY).nullable().optional(),
}).strict()

const saveData = z.object({
  ...objectFieldShape,
  id: idOrNickname.optional(),
  object_type: z.string().min(1).optional(),
  parents: z.array(z.number().int().positive()).optional(),
  relations: z.record(z.string(), z.array(relationItem)).optional(),
  upload_token: z.string().min(1).max(512).optional(),
}).strict()

export interface SaveInput {
  /** present on update */
  id: string | null
  object_type: string | null
  nickname: string | undefined
  columns: Partial<WritableColumns>
  extras: ObjectExtras
  parents: number[] | null
  relations: { name: string, related_id: number, priority: number | null, params: string | null }[] | null
  /** attaches the file of a pending upload (decisions §12) */
  upload_token: string | null
}

export type Parsed<T> = { ok: true, value: T } | { ok: false, details: Record<string, string> }

/** `data` of POST /objects → a checked input, or every problem keyed by field. */
export function parseSaveInput (raw: unknown): Parsed<SaveInput> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, details: { data: 'must be a JSON object' } }
  const owned = SERVER_OWNED.filter((k) => Object.hasOwn(raw as object, k))
  if (owned.length > 0) return { ok: false, details: Object.fromEntries(owned.map((k) => [k, 'is set by the server and cannot be written'])) }
  const parsed = saveData.safeParse(raw)
  if (!parsed.success) return { ok: false, details: issuesByField(parsed.error) }
  const d = parsed.data
  const details: Record<string, string> = {}
  if (d.nickname !== undefined) {
    const problem = nicknameProblem(d.nickname)
    if (problem) details.nickname = problem
  }
  if (d.id === undefined && d.object_type === undefined) details.object_type = 'is required to create an object'
  // empty lists count as absent: an object with no parent and no relation would be unreachable
  const linked = (d.parents ?? []).length > 0 || Object.values(d.relations ?? {}).some((items) => items.length > 0)
  if (d.id === undefined && !linked) details.parents = 'parents or relations are required to create an object'
  if (Object.keys(details).length > 0) return { ok: false, details }
  const { columns, extras } = splitFields(d)
  return {
    ok: true,
    value: {
      id: d.id === undefined ? null : String(d.id),
      object_type: d.object_type ?? null,
      nickname: d.nickname,
      columns,
      extras,
      parents: d.parents ?? null,
      relations: d.relations === undefined ? null : Object.entries(d.relations).flatMap(([name, items]) => items.map((i) => ({
        name, related_id: i.related_id, priority: i.priority ?? null, params: i.params == null ? null : JSON.stringify(i.params),
      }))),
      upload_token: d.upload_token ?? null,
    },
  }
}

function issuesByField (error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {}
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') for (const key of issue.keys) out[[...issue.path, key].join('.')] ??= 'is not a writable field'
  }
  for (const line of describeIssues(error)) {
    if (line.includes('Unrecognized key')) continue
    const at = line.indexOf(': ')
    const field = line.slice(0, at)
    out[field] ??= line.slice(at + 2)
  }
  return out
}
