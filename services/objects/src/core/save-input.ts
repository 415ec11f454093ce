import { SERVER_OWNED, objectWriteData } from '@content/api-schema'
import type { z } from 'zod'
import { describeIssues } from '@content/platform'
import { splitFields, type ObjectExtras, type WritableColumns } from './object-input.js'
import { nicknameProblem } from './nickname.js'

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
  const parsed = objectWriteData.safeParse(raw)
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

/**
 * Each problem under its field's name. Gathered in a Map: the names are the client's, and on a plain
 * object `constructor`, `toString` or `__proto__` already hold something, so their problems were lost.
 */
function issuesByField (error: z.ZodError): Record<string, string> {
  const out = new Map<string, string>()
  const add = (field: string, problem: string) => { if (!out.has(field)) out.set(field, problem) }
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') for (const key of issue.keys) add([...issue.path, key].join('.'), 'is not a writable field')
  }
  for (const line of describeIssues(error)) {
    if (line.includes('Unrecognized key')) continue
    const at = line.indexOf(': ')
    add(line.slice(0, at), line.slice(at + 2))
  }
  return Object.fromEntries(out)
}
