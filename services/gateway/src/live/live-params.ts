import { isChangeType, isObjectType, parseObjectRef, type ChangeType } from '@content/api-schema'
import { HttpError } from '../http/errors.js'

/** Decisions §17: what `GET /changes` takes; anything else is refused before the stream opens. */
export const LIVE_PARAMETERS = ['filter[object_type]', 'filter[parent]', 'filter[ancestor]', 'events', 'status', 'after', 'ticket', 'access_token'] as const

/** A stream's parameters, checked; `filter[parent]` and `filter[ancestor]` as sent (an id or a nickname). */
export interface LiveRequest extends Omit<LiveParams, 'parent' | 'ancestor'> {
  parent: string | null
  ancestor: string | null
}

/** A stream's parameters, its references resolved to the ids the caller may read (live-references.ts). */
export interface LiveParams {
  /** empty: every type */
  objectTypes: ReadonlySet<string>
  /** 0: a reference that names nothing the caller may read, which matches nothing */
  parent: number | null
  ancestor: number | null
  /** empty: every type */
  events: ReadonlySet<ChangeType>
  drafts: boolean
  /** `after`, as sent (Last-Event-ID otherwise); parsed by live-position.ts, where a bad one means `reset`, not 400 */
  after: string | null
  /** as sent: the auth service decides whether it is one it issued */
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

/** Longest reference taken: an id has 16 digits at most, a nickname is far shorter in practice. */
const MAX_REFERENCE = 255

/** An object reference as §15's filters take it: an id (digits, 1 to 2^53-1) or a nickname. */
function reference (parameter: string, raw: string): string {
  if (raw.length > MAX_REFERENCE || parseObjectRef(raw) === null || raw.includes(',')) throw invalid(parameter, 'must be one object id (1 to 9007199254740991) or nickname')
  return raw
}

/** Checks every parameter of `GET /changes`; the first wrong one is a 400 naming it as sent. */
export function parseLiveParams (query: URLSearchParams): LiveRequest {
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
  // decisions §17: a position the store did not issue (empty, too long, another format) is a `reset`, not a 400
  const after = query.get('after')
  return {
    objectTypes: types === null ? new Set() : names('filter[object_type]', types, isObjectType),
    parent: parent === null ? null : reference('filter[parent]', parent),
    ancestor: ancestor === null ? null : reference('filter[ancestor]', ancestor),
    events: events === null ? new Set() : names('events', events, isChangeType),
    drafts: status === 'draft',
    after,
    ticket,
  }
}
