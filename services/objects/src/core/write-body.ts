import { MAX_PRIORITY } from '@content/api-schema'
import { DomainError, parseJsonBody } from '@content/platform'

/**
 * The `data` member of a write body, read from the body as the client sent it (the gateway forwards
 * the text; absent when there was none), and the shape checks of relation and child bodies; problems are
 * named per field (`data[1].related_id`). A write checks its caller and object before calling these
 * (decisions §2: they outrank the body's 400).
 */
type Problems = Record<string, string>

const missingData = () =>
  new DomainError('MISSING_PARAMETER', 'the request body must be a JSON object with a "data" member', { parameter: 'data' })

/**
 * The body's `data`, parsed: the one parse of a write body's meaning. The gateway refused malformed and
 * too deep bodies already; the same checks here keep a forged call from reaching the writers with them.
 */
export function bodyData (bodyJson: string | undefined): unknown {
  if (bodyJson === undefined) throw missingData()
  const body = parseJsonBody(bodyJson)
  if (!body.ok) throw new DomainError(body.reason, body.message)
  const data = isPlainObject(body.value) ? body.value.data : undefined
  if (data === undefined) throw missingData()
  return data
}

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0
const isPriority = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_PRIORITY
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const given = (v: unknown): boolean => v !== undefined && v !== null

function failIf (problems: Problems): void {
  const fields = Object.keys(problems)
  if (fields.length > 0) throw new DomainError('VALIDATION_FAILED', `invalid fields: ${fields.join(', ')}`, problems)
}

function itemsOf (data: unknown, problems: Problems): Array<[string, Record<string, unknown>]> {
  const list = Array.isArray(data) ? data : [data]
  if (list.length === 0) problems.data = 'must hold at least one item'
  if (list.length > 1000) problems.data = 'must hold at most 1000 items'
  const out: Array<[string, Record<string, unknown>]> = []
  list.forEach((item, i) => {
    const at = Array.isArray(data) ? `data[${i}]` : 'data'
    if (isPlainObject(item)) out.push([at, item])
    else problems[at] = 'must be an object'
  })
  return out
}

function unknownKeys (at: string, item: Record<string, unknown>, allowed: string[], problems: Problems) {
  for (const key of Object.keys(item)) if (!allowed.includes(key)) problems[`${at}.${key}`] = 'is not a known field'
}

/** A relation to write: `params` is JSON text of an object; an absent priority or params is null. */
export interface RelationItem { related_id: number, priority: number | null, params: string | null }

/** POST …/relations/{name}: one item or a list of them. */
export function relationItems (data: unknown): RelationItem[] {
  const problems: Problems = {}
  const items = itemsOf(data, problems).map(([at, item]): RelationItem => {
    unknownKeys(at, item, ['related_id', 'priority', 'params'], problems)
    if (!isId(item.related_id)) problems[`${at}.related_id`] = 'is required and must be a positive integer'
    if (given(item.priority) && !isPriority(item.priority)) problems[`${at}.priority`] = 'must be a non-negative integer'
    if (given(item.params) && !isPlainObject(item.params)) problems[`${at}.params`] = 'must be an object'
    return {
      related_id: item.related_id as number,
      priority: isPriority(item.priority) ? item.priority : null,
      params: isPlainObject(item.params) ? JSON.stringify(item.params) : null,
    }
  })
  failIf(problems)
  return items
}

export interface ChildItem { child_id: number, priority: number | null }

/** POST …/children: one item or a list of them. */
export function childItems (data: unknown): ChildItem[] {
  const problems: Problems = {}
  const items = itemsOf(data, problems).map(([at, item]): ChildItem => {
    unknownKeys(at, item, ['child_id', 'priority'], problems)
    if (!isId(item.child_id)) problems[`${at}.child_id`] = 'is required and must be a positive integer'
    if (given(item.priority) && !isPriority(item.priority)) problems[`${at}.priority`] = 'must be a non-negative integer'
    return { child_id: item.child_id as number, priority: isPriority(item.priority) ? item.priority : null }
  })
  failIf(problems)
  return items
}

/** PUT of a relation: params and/or priority; the one left out becomes null. */
export function relationReplacement (data: unknown): { priority: number | null, params: string | null } {
  const problems: Problems = {}
  if (!isPlainObject(data)) throw new DomainError('VALIDATION_FAILED', '"data" must be an object', { data: 'must be an object' })
  unknownKeys('data', data, ['params', 'priority'], problems)
  const hasPriority = given(data.priority)
  const hasParams = given(data.params)
  if (!hasPriority && !hasParams) problems.data = 'needs params or priority'
  if (hasPriority && !isPriority(data.priority)) problems['data.priority'] = 'must be a non-negative integer'
  if (hasParams && !isPlainObject(data.params)) problems['data.params'] = 'must be an object'
  failIf(problems)
  return { priority: hasPriority ? data.priority as number : null, params: hasParams ? JSON.stringify(data.params) : null }
}

/** PUT of a child: `data.priority` is required; other fields are named, as on every other write body. */
export function childPriority (data: unknown): number {
  if (!isPlainObject(data) || !isPriority(data.priority)) {
    throw new DomainError('VALIDATION_FAILED', 'data.priority is required and must be a non-negative integer', { 'data.priority': 'is required and must be a non-negative integer' })
  }
  const problems: Problems = {}
  unknownKeys('data', data, ['priority'], problems)
  failIf(problems)
  return data.priority
}
