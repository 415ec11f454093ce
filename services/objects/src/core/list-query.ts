import { createHmac, timingSafeEqual } from 'node:crypto'
import {
  checkCondition, DEFAULT_INCLUDE_BUDGET, DEFAULT_INCLUDE_LIMIT, fieldRule, includeBudgetProblem, MAX_CONDITIONS, MAX_INCLUDE_LIMIT, MAX_INCLUDES,
  MAX_SORT_KEYS, RELATION_NAMES, SORT_FIELDS, type Operator, type SortField, type SortKey,
} from '@content/api-schema'
import { DomainError } from '@content/platform'
import type { ChildScope } from './types.js'

/**
 * The query of decisions §15 as the objects service takes it: the gateway parsed the request's grammar
 * (schema/src/list-query.ts); what arrives from it is checked again here against the same table, as any
 * input from another process is, then compiled by each store (`ListsPort.select`).
 */

/** A condition whose values are ready for a store: numbers for ids, dates and resolved references. */
export interface Clause { field: string, op: Operator, values: (string | number)[], group: number | null }

/** A list's query, checked. */
export interface ListSpec {
  conditions: Clause[]
  sort: SortKey[]
  include: string[][]
  include_limit: number
  /** null: page paging */
  cursor: string | null
  count: boolean
}

export const NO_SPEC: ListSpec = { conditions: [], sort: [], include: [], include_limit: DEFAULT_INCLUDE_LIMIT, cursor: null, count: true }

/** Whether the list needs the general path (the stores keep a faster one for the plain §3 lists). */
export const needsSelect = (s: ListSpec): boolean => s.conditions.length > 0 || s.sort.length > 0 || s.cursor !== null || !s.count

/** The wire form (proto ListQuery), as the gateway sends it. */
export interface WireQuery {
  conditions?: { field?: string, op?: string, values?: string[], group?: number | null }[] | null
  sort?: { field?: string, descending?: boolean }[] | null
  include?: string[] | null
  include_limit?: number | null
  cursor?: string | null
  count_none?: boolean | null
}

const invalid = (parameter: string, message: string) => new DomainError('INVALID_PARAMETER', message, { parameter })

const NUMERIC = new Set(['id', 'created', 'modified', 'start_date', 'end_date', 'publication_date'])

/**
 * The parameter a condition came from, as the grammar's own spelling would send it (`eq` unwritten): the
 * gateway refuses every condition this service would, so this names a sender that is not the gateway.
 */
export function parameterOf (c: { field: string, op: string, group: number | null }): string {
  const op = c.op === 'eq' ? '' : `[${c.op}]`
  return c.group === null ? `filter[${c.field}]${op}` : `filter[or][${c.group}][${c.field}]${op}`
}

/** Checks the wire form against the grammar's table; a refusal names the parameter it came from. */
export function listSpecOf (wire: WireQuery | null | undefined): ListSpec {
  if (!wire) return NO_SPEC
  const conditions = (wire.conditions ?? []).map((c): Clause => {
    const condition = { field: c.field ?? '', op: (c.op ?? '') as Operator, values: c.values ?? [], group: c.group ?? null }
    const problem = checkCondition(condition)
    if (problem !== null) throw invalid(parameterOf(condition), `${parameterOf(condition)}: ${problem}`)
    const numeric = NUMERIC.has(condition.field) && condition.op !== 'null'
    return { ...condition, values: numeric ? condition.values.map(Number) : condition.values }
  })
  if (conditions.length > MAX_CONDITIONS) throw invalid('filter', `at most ${MAX_CONDITIONS} filter conditions`)
  const sort = (wire.sort ?? []).map((k) => {
    if (!(SORT_FIELDS as readonly string[]).includes(k.field ?? '')) throw invalid('sort', `unknown sort key "${k.field}"`)
    return { field: k.field as SortField, descending: k.descending === true }
  })
  if (sort.length > MAX_SORT_KEYS || new Set(sort.map((k) => k.field)).size !== sort.length) throw invalid('sort', 'at most three distinct sort keys')
  const include = (wire.include ?? []).map((path) => path.split('.'))
  if (include.length > MAX_INCLUDES || include.some((p) => p.length > 2 || p.some((n) => !RELATION_NAMES.has(n)))) throw invalid('include', 'include names one or two known relations, at most five times')
  const limit = wire.include_limit || DEFAULT_INCLUDE_LIMIT
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= MAX_INCLUDE_LIMIT)) throw invalid('include_limit', `include_limit is 1 to ${MAX_INCLUDE_LIMIT}`)
  return { conditions, sort, include, include_limit: limit, cursor: wire.cursor ?? null, count: wire.count_none !== true }
}

/**
 * The include budget (decisions §15, defined in @content/api-schema): a page of `pageSize` objects (1 for a
 * single read) whose include could add more than `budget` objects is refused before any work.
 */
export function checkIncludeBudget (spec: ListSpec, pageSize: number, budget = DEFAULT_INCLUDE_BUDGET): void {
  const problem = includeBudgetProblem(pageSize, spec.include, spec.include_limit, budget)
  if (problem !== null) throw invalid('include_limit', problem)
}

/** Whether a field's rule takes references (parent, ancestor, related.*): the core resolves them first. */
export const isReference = (field: string): boolean => fieldRule(field)?.kind === 'ref'

/** What a list is of: where the store finds its rows. */
export type ListScope =
  | { kind: 'descendants', node: number, order: 'tree' | 'id' }
  | { kind: 'children', node: number, scope: ChildScope, exclude?: number }
  | { kind: 'related', object: number, name: string }

/** The sort keys of a list with its default order (decisions §3) made explicit; `id` ends every order. */
export function sortKeysOf (scope: ListScope, sort: SortKey[]): SortKey[] {
  if (sort.length > 0) return sort
  if (scope.kind === 'descendants' && scope.order === 'id') return []
  return [{ field: 'priority', descending: false }]
}

/** A row's place in its list: the values of its sort keys, then its id. */
export interface Position { keys: (string | number | null)[], id: number }

/**
 * Cursors are opaque to clients: the position and a fingerprint of the list they page (scope, filters,
 * sort), signed so that a changed or foreign cursor is refused rather than silently misread.
 */
export function encodeCursor (secret: string, fingerprint: string, at: Position): string {
  const body = Buffer.from(JSON.stringify([fingerprint, at.keys, at.id])).toString('base64url')
  return `${body}.${signature(secret, body)}`
}

export function decodeCursor (secret: string, fingerprint: string, cursor: string): Position {
  const refused = invalid('cursor', 'cursor is not a cursor of this list (it was changed, or comes from another list, filter or sort)')
  const [body = '', sig = '', extra] = cursor.split('.')
  const expected = signature(secret, body)
  if (extra !== undefined || sig.length !== expected.length || !timingSafeEqual(Buffer.from(sig), Buffer.from(expected))) throw refused
  let value: unknown
  try { value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) } catch { throw refused }
  if (!Array.isArray(value) || value.length !== 3 || value[0] !== fingerprint || !Array.isArray(value[1]) || !Number.isSafeInteger(value[2])) throw refused
  const keys = value[1] as unknown[]
  if (!keys.every((k) => k === null || typeof k === 'string' || typeof k === 'number')) throw refused
  return { keys: keys as Position['keys'], id: value[2] as number }
}

const signature = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('base64url').slice(0, 22)

/** What identifies a list for its cursors: the scope, the filters and the order, not the page. */
export function fingerprintOf (scope: ListScope, filter: unknown, spec: ListSpec): string {
  return createHmac('sha256', 'list').update(JSON.stringify([scope, filter, spec.conditions, spec.sort])).digest('base64url').slice(0, 16)
}
