import { isChangeType, isObjectType, type ChangeType } from '@content/api-schema'
import { HttpError } from '../http/errors.js'

/** Decisions §17: what `GET /changes` takes; anything else is refused before the stream opens. */
export const LIVE_PARAMETERS = ['filter[object_type]', 'filter[parent]', 'filter[ancestor]', 'events', 'status', 'after', 'ticket', 'access_token'] as const

/** A stream's parameters, checked. */
export interface LiveParams {
  /** empty: every type */
  objectTypes: ReadonlySet<string>
  parent: number | null
  ancestor: number | null
  /** empty: every type */
  events: ReadonlySet<ChangeType>
  drafts: boolean
  /** `after`, as sent (Last-Event-ID otherwise); parsed by live-position.ts, where a bad one means `reset`, not 400 */
  after: string | null
  ticket: string | null
}

const invalid = (parameter: string, message: string) => new HttpError('INVALID_PARAMETER', `${parameter}: ${message}`, { parameter })

/** A comma list of known names, at least one. */
function names<T extends string> (parameter: string, raw: string, known: (s: string) => s is T): Set<T> {
  const items = raw.split(',').map((s) => s.trim())
  const unknown = items.filter((s) => !known(s))
  if (unknown.length > 0) throw invalid(parameter, `unknown names: ${unknown.map((s) => JSON.stringify(s)).join(', ')}`)
  return new Set(items as T[])
}

/** An object id: digits, positive, safe. */
function objectId (parameter: string, raw: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw invalid(parameter, 'must be an object id (a positive integer)')
  return Number(raw)
}

/** Checks every parameter of `GET /changes`; the first wrong one is a 400 naming it as sent. */
export function parseLiveParams (query: URLSearchParams): LiveParams {
  for (const key of new Set(query.keys())) {
    if (!(LIVE_PARAMETERS as readonly string[]).includes(key)) {
      throw invalid(key, `not a parameter of /changes; accepted: ${LIVE_PARAMETERS.join(', ')}`)
    }
    if (query.getAll(key).length > 1) throw invalid(key, 'must be given at most once')
  }
  const types = query.get('filter[object_type]')
  const parent = query.get('filter[parent]')
  const ancestor = query.get('filter[ancestor]')
  const events = query.get('events')
  const status = query.get('status')
  if (status !== null && status !== 'draft') throw invalid('status', `takes one value, draft; got ${JSON.stringify(status)}`)
  const ticket = query.get('ticket')
  if (ticket !== null && !/^[A-Za-z0-9_-]{16,128}$/.test(ticket)) throw invalid('ticket', 'is not a ticket')
  const after = query.get('after')
  if (after !== null && (after.length === 0 || after.length > 200)) throw invalid('after', 'must be a position a stream sent')
  return {
    objectTypes: types === null ? new Set() : names('filter[object_type]', types, isObjectType),
    parent: parent === null ? null : objectId('filter[parent]', parent),
    ancestor: ancestor === null ? null : objectId('filter[ancestor]', ancestor),
    events: events === null ? new Set() : names('events', events, isChangeType),
    drafts: status === 'draft',
    after,
    ticket,
  }
}
