import { parseObjectRef, type ObjectRef } from '@content/api-schema'
import { DomainError } from '@content/platform'

export type { ObjectRef }

/** The object a request names (`{object_id}` as given), by the API's one rule; 400 INVALID_OBJECT_ID for an id out of range. */
export function objectRef (objectId: string): ObjectRef {
  const ref = parseObjectRef(objectId)
  if (ref === null) throw new DomainError('INVALID_OBJECT_ID', `object id "${objectId}" is out of range (1 to ${Number.MAX_SAFE_INTEGER})`)
  // no nickname holds U+0000, and PostgreSQL cannot even look one up: not found on every store
  if ('nickname' in ref && ref.nickname.includes('\u0000')) throw new DomainError('OBJECT_NOT_FOUND', `object ${JSON.stringify(objectId)} not found`)
  return ref
}
