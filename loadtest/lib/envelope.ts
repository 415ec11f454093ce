/**
 * Checks of the API's response shapes (spec 2.1/2.2, decisions §1–2). Pure: no k6 imports, so
 * vitest tests them and k6 scripts reuse them. Each check returns the list of problems found.
 */
export interface Paging { page: number, page_size: number, page_count: number, total: number, total_pages: number }
export interface ObjectSummary { id: number, object_type: string, relations?: Record<string, { count: number, url: string }>, children?: { count: number } }

type Dict = Record<string, unknown>
const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v)
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v)

/** JSON.parse that answers undefined instead of throwing (bodies of 204s, HTML error pages). */
export function parseJson (text: string | null | undefined): unknown {
  if (text === null || text === undefined || text === '') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

export interface EnvelopeExpectation { api?: string, method?: string, list?: boolean }

/** Problems with a success envelope `{api, data, method, params, url, paging?}`. */
export function envelopeProblems (body: unknown, expected: EnvelopeExpectation = {}): string[] {
  if (!isDict(body)) return ['body is not a JSON object']
  const problems: string[] = []
  for (const key of ['api', 'data', 'method', 'params', 'url']) if (!(key in body)) problems.push(`missing ${key}`)
  if ('error' in body) problems.push('success body carries an error key')
  if (expected.api !== undefined && body.api !== expected.api) problems.push(`api is ${String(body.api)}, expected ${expected.api}`)
  if (expected.method !== undefined && body.method !== expected.method) problems.push(`method is ${String(body.method)}, expected ${expected.method}`)
  if (typeof body.url !== 'string' || !/^https?:\/\//.test(body.url)) problems.push('url is not absolute')
  if (expected.list === true) {
    if (!isDict(body.data) || !Array.isArray(body.data.objects)) problems.push('data.objects is not an array')
    if (!isDict(body.paging)) problems.push('paging missing on a list')
  }
  return problems
}

/** Problems with an error body `{error: {status, code, message, details, more_info, url}}`. */
export function errorProblems (body: unknown, status: number, code?: string): string[] {
  if (!isDict(body) || !isDict(body.error)) return ['body has no error object']
  const error = body.error
  const problems: string[] = []
  if (error.status !== status) problems.push(`error.status is ${String(error.status)}, expected ${status}`)
  if (typeof error.code !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(error.code)) problems.push('error.code is not UPPER_SNAKE')
  if (code !== undefined && error.code !== code) problems.push(`error.code is ${String(error.code)}, expected ${code}`)
  if (typeof error.message !== 'string') problems.push('error.message is not a string')
  if ('data' in body) problems.push('error body carries data')
  return problems
}

/** `data.objects` of a list envelope, keeping entries with an integer id and a type. */
export function listedObjects (body: unknown): ObjectSummary[] {
  if (!isDict(body) || !isDict(body.data) || !Array.isArray(body.data.objects)) return []
  return body.data.objects.filter((o): o is ObjectSummary => isDict(o) && isInt(o.id) && typeof o.object_type === 'string')
}

/** `data.object` of a single-object read. */
export function objectOf (body: unknown): ObjectSummary | undefined {
  if (!isDict(body) || !isDict(body.data) || !isDict(body.data.object)) return undefined
  const object = body.data.object
  return isInt(object.id) && typeof object.object_type === 'string' ? object as unknown as ObjectSummary : undefined
}

export function pagingOf (body: unknown): Paging | undefined {
  if (!isDict(body) || !isDict(body.paging)) return undefined
  const p = body.paging
  const keys = ['page', 'page_size', 'page_count', 'total', 'total_pages'] as const
  return keys.every((k) => isInt(p[k])) ? p as unknown as Paging : undefined
}

/** Relation names with at least one related object, from an object's `relations` summary. */
export function relationNames (object: ObjectSummary | undefined): string[] {
  return Object.entries(object?.relations ?? {}).filter(([, r]) => isDict(r) && isInt(r.count) && r.count > 0).map(([n]) => n).sort()
}
