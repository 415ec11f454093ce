import { HttpError } from '../errors.js'

/** Shape checks of relation/child write bodies; problems are named per field (`data[1].related_id`). */
type Problems = Record<string, string>

const MAX_PRIORITY = 2_147_483_647
const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0
const isPriority = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_PRIORITY
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function failIf (problems: Problems): void {
  const fields = Object.keys(problems)
  if (fields.length > 0) throw new HttpError(400, 'VALIDATION_FAILED', `invalid fields: ${fields.join(', ')}`, problems)
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

export interface RelationItem { related_id: number, priority?: number, params_json?: string }

export function relationItems (data: unknown): RelationItem[] {
  const problems: Problems = {}
  const items = itemsOf(data, problems).map(([at, item]): RelationItem => {
    unknownKeys(at, item, ['related_id', 'priority', 'params'], problems)
    if (!isId(item.related_id)) problems[`${at}.related_id`] = 'is required and must be a positive integer'
    if (item.priority !== undefined && item.priority !== null && !isPriority(item.priority)) problems[`${at}.priority`] = 'must be a non-negative integer'
    if (item.params !== undefined && item.params !== null && !isPlainObject(item.params)) problems[`${at}.params`] = 'must be an object'
    const out: RelationItem = { related_id: item.related_id as number }
    if (isPriority(item.priority)) out.priority = item.priority
    if (isPlainObject(item.params)) out.params_json = JSON.stringify(item.params)
    return out
  })
  failIf(problems)
  return items
}

export interface ChildItem { child_id: number, priority?: number }

export function childItems (data: unknown): ChildItem[] {
  const problems: Problems = {}
  const items = itemsOf(data, problems).map(([at, item]): ChildItem => {
    unknownKeys(at, item, ['child_id', 'priority'], problems)
    if (!isId(item.child_id)) problems[`${at}.child_id`] = 'is required and must be a positive integer'
    if (item.priority !== undefined && item.priority !== null && !isPriority(item.priority)) problems[`${at}.priority`] = 'must be a non-negative integer'
    return isPriority(item.priority) ? { child_id: item.child_id as number, priority: item.priority } : { child_id: item.child_id as number }
  })
  failIf(problems)
  return items
}

/** PUT of a relation: params and/or priority; the one left out becomes null. */
export function relationReplacement (data: unknown): { priority?: number, params_json?: string } {
  const problems: Problems = {}
  if (!isPlainObject(data)) throw new HttpError(400, 'VALIDATION_FAILED', '"data" must be an object', { data: 'must be an object' })
  unknownKeys('data', data, ['params', 'priority'], problems)
  const hasPriority = data.priority !== undefined && data.priority !== null
  const hasParams = data.params !== undefined && data.params !== null
  if (!hasPriority && !hasParams) problems.data = 'needs params or priority'
  if (hasPriority && !isPriority(data.priority)) problems['data.priority'] = 'must be a non-negative integer'
  if (hasParams && !isPlainObject(data.params)) problems['data.params'] = 'must be an object'
  failIf(problems)
  const out: { priority?: number, params_json?: string } = {}
  if (hasPriority) out.priority = data.priority as number
  if (hasParams) out.params_json = JSON.stringify(data.params)
  return out
}

/** PUT of a child: `data.priority` is required; other fields are named, as on every other write body. */
export function childPriority (data: unknown): number {
  if (!isPlainObject(data) || !isPriority(data.priority)) {
    throw new HttpError(400, 'VALIDATION_FAILED', 'data.priority is required and must be a non-negative integer', { 'data.priority': 'is required and must be a non-negative integer' })
  }
  const problems: Problems = {}
  unknownKeys('data', data, ['priority'], problems)
  failIf(problems)
  return data.priority
}
