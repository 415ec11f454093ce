import { MAX_LINK_ITEMS, childItemData, childPriorityData, relationItemData, relationReplaceData } from '@content/api-schema'
import { DomainError, parseJsonBody } from '@content/platform'
import type { z } from 'zod'

/**
 * The `data` member of a write body, read from the body as the client sent it (the gateway forwards
 * the text; absent when there was none), and the checks of relation and child bodies by their schemas
 * (@content/api-schema write-bodies.ts); problems are named per field (`data[1].related_id`). A write checks its caller and object before calling these
 * (decisions §2: they outrank the body's 400).
 */
type Problems = Record<string, string>

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

const missingData = () =>
  new DomainError('MISSING_PARAMETER', 'the request body must be a JSON object with a "data" member', { parameter: 'data' })

/**
 * The body's `data`, parsed: the one parse of a write body's meaning. The gateway refused malformed and
 * too deep bodies already; the same checks here keep a forged call from reaching the writers with them.
 */
export function bodyData (bodyJson: string | undefined): unknown {
  if (bodyJson === undefined) throw missingData()
  const body = parseJsonBody(bodyJson)
  if (!body.ok) throw new DomainError(body.reason, body.message, 'details' in body ? body.details : null)
  const data = isPlainObject(body.value) ? body.value.data : undefined
  if (data === undefined) throw missingData()
  return data
}

/** What a refused field is told, by field, in the order they are named (the rules are the schemas': @content/api-schema write-bodies.ts). */
const FIELD_PROBLEMS: Readonly<Record<string, string>> = {
  related_id: 'is required and must be a positive integer',
  child_id: 'is required and must be a positive integer',
  priority: 'must be a non-negative integer',
  params: 'must be an object',
}

function failIf (problems: Problems): void {
  const fields = Object.keys(problems)
  if (fields.length > 0) throw new DomainError('VALIDATION_FAILED', `invalid fields: ${fields.join(', ')}`, problems)
}

/**
 * The problems of one object at `at` (`data`, `data[2]`), named per field: first the fields the schema
 * does not know, as they come, then each field it refuses, then what it says of the whole.
 */
function problemsOf (at: string, error: z.ZodError, problems: Problems): void {
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') for (const key of issue.keys) problems[`${at}.${key}`] = 'is not a known field'
  }
  const refused = error.issues.filter((i) => i.code !== 'unrecognized_keys')
  for (const field of Object.keys(FIELD_PROBLEMS)) {
    if (refused.some((i) => i.path[0] === field)) problems[`${at}.${field}`] = FIELD_PROBLEMS[field] as string
  }
  for (const issue of refused) {
    const [field] = issue.path
    if (typeof field === 'string') problems[`${at}.${field}`] ??= issue.message
    else problems[at] ??= issue.message
  }
}

/** One item or a list of them, each parsed by `item`; every problem of every item named, those that are no objects first. */
function itemsOf<T> (data: unknown, item: z.ZodType<T>): T[] {
  const problems: Problems = {}
  const list = Array.isArray(data) ? data : [data]
  if (list.length === 0) problems.data = 'must hold at least one item'
  if (list.length > MAX_LINK_ITEMS) problems.data = `must hold at most ${MAX_LINK_ITEMS} items`
  const at = (i: number) => (Array.isArray(data) ? `data[${i}]` : 'data')
  list.forEach((raw, i) => { if (!isPlainObject(raw)) problems[at(i)] = 'must be an object' })
  const items = list.map((raw, i) => {
    const parsed = item.safeParse(raw)
    if (!parsed.success && isPlainObject(raw)) problemsOf(at(i), parsed.error, problems)
    return parsed.data
  })
  failIf(problems)
  return items as T[]
}

const paramsText = (params: Record<string, unknown> | null | undefined): string | null => (params == null ? null : JSON.stringify(params))

/** A relation to write: `params` is JSON text of an object; an absent priority or params is null. */
export interface RelationItem { related_id: number, priority: number | null, params: string | null }

/** POST …/relations/{name}: one item or a list of them. */
export function relationItems (data: unknown): RelationItem[] {
  return itemsOf(data, relationItemData).map((i) => ({ related_id: i.related_id, priority: i.priority ?? null, params: paramsText(i.params) }))
}

export interface ChildItem { child_id: number, priority: number | null }

/** POST …/children: one item or a list of them. */
export function childItems (data: unknown): ChildItem[] {
  return itemsOf(data, childItemData).map((i) => ({ child_id: i.child_id, priority: i.priority ?? null }))
}

/** PUT of a relation: params and/or priority; the one left out becomes null. */
export function relationReplacement (data: unknown): { priority: number | null, params: string | null } {
  if (!isPlainObject(data)) throw new DomainError('VALIDATION_FAILED', '"data" must be an object', { data: 'must be an object' })
  const parsed = relationReplaceData.safeParse(data)
  if (!parsed.success) {
    const problems: Problems = {}
    problemsOf('data', parsed.error, problems)
    failIf(problems)
  }
  return { priority: parsed.data?.priority ?? null, params: paramsText(parsed.data?.params) }
}

/** PUT of a child: `data.priority` is required; other fields are named, as on every other write body. */
export function childPriority (data: unknown): number {
  const parsed = childPriorityData.safeParse(data)
  if (parsed.success) return parsed.data.priority
  const priorityRefused = !isPlainObject(data) || parsed.error.issues.some((i) => i.path[0] === 'priority')
  if (priorityRefused) {
    throw new DomainError('VALIDATION_FAILED', 'data.priority is required and must be a non-negative integer', { 'data.priority': 'is required and must be a non-negative integer' })
  }
  const problems: Problems = {}
  problemsOf('data', parsed.error, problems)
  failIf(problems)
  return data.priority as number
}
