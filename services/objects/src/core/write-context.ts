import { DomainError } from '@content/platform'
import { PUBLICATION_ID } from './publication.js'
import { objectRef } from './object-ref.js'
import { isObjectType, traitsOf, type ObjectTypeName } from './object-types.js'
import type { ReadDeps } from './read-context.js'
import type { Caller, ObjectRecord } from './types.js'
import { canRead } from './visibility.js'
import { writeAccess } from './write-access.js'

export interface WriteDeps {
  reads: ReadDeps
  writerGroups: string[]
  now: () => number
}

export const invalid = (details: Record<string, string>, message?: string) =>
  new DomainError('VALIDATION_FAILED', message ?? `invalid ${Object.keys(details).join(', ')}: ${Object.values(details)[0]}`, details)

/** A write without a caller is 401 before anything about the object is looked at. */
export function requireCaller (caller: Caller): void {
  if (caller.user_id === 0) throw new DomainError('AUTHENTICATION_REQUIRED', 'writing needs an authenticated caller')
}

export function requireWriteAccess (deps: WriteDeps, caller: Caller, record: ObjectRecord | null): void {
  const access = writeAccess(caller, deps.writerGroups, record)
  if (access === 'anonymous') requireCaller(caller)
  if (access === 'denied') {
    throw new DomainError('PERMISSION_DENIED', record === null ? 'no permission to write objects' : `no permission to write object ${record.id}`)
  }
}

/**
 * A type a write may name: known (else UNKNOWN_OBJECT_TYPE) and writable (spec 4.10.5): a type writable by
 * default (never the publication's area) that the configuration's list, if any, names.
 */
export function writableType (name: string | null, writableTypes: string[]): ObjectTypeName {
  if (name === null || !isObjectType(name)) throw new DomainError('UNKNOWN_OBJECT_TYPE', `unknown object type "${name ?? ''}"`)
  const writable = traitsOf(name).writableByDefault && (writableTypes.length === 0 || writableTypes.includes(name))
  if (!writable) throw new DomainError('TYPE_NOT_WRITABLE', `${name} is not writable`)
  return name
}

/**
 * The object named in a write path: 401, 403 for a caller in no writing group (before the object is looked
 * at, so the answer tells nothing of it), 404, then 403. A draft exists only for its writers (decisions
 * §16): one the caller may not write is 404, as for an id that never was. Writers see every status, but a
 * write needs read rights too: a writer outside a protected object's read groups may neither change nor see it.
 */
export async function writableObject (deps: WriteDeps, caller: Caller, objectId: string): Promise<ObjectRecord> {
  requireCaller(caller)
  requireWriteAccess(deps, caller, null)
  const record = await deps.reads.store.objects.get(objectRef(objectId))
  if (record === null || (record.status === 'draft' && writeAccess(caller, deps.writerGroups, record) !== 'ok')) {
    throw new DomainError('OBJECT_NOT_FOUND', `object "${objectId}" not found`)
  }
  requireWriteAccess(deps, caller, record)
  if (!canRead(record, caller.groups)) throw new DomainError('PERMISSION_DENIED', `no permission to read object ${record.id}`)
  return record
}

/** The other end of a relation or tree edge a write names: one the writer may not read does not exist for it. */
export async function readableOther (deps: WriteDeps, caller: Caller, id: number): Promise<ObjectRecord | undefined> {
  const [record] = await deps.reads.store.objects.listByIds([id])
  return record !== undefined && canRead(record, caller.groups) ? record : undefined
}

/** On the publication tree: the publication or one of its descendants. */
export async function onTree (deps: WriteDeps, id: number): Promise<boolean> {
  return id === PUBLICATION_ID || deps.reads.store.tree.isAncestor(PUBLICATION_ID, id)
}

/** Decisions §5: a related object is reachable on the tree, or through a relation to an object on it. */
export async function reachable (deps: WriteDeps, caller: Caller, record: ObjectRecord): Promise<boolean> {
  if (!canRead(record, caller.groups)) return false
  if (await onTree(deps, record.id)) return true
  for (const id of await deps.reads.store.relations.neighbours(record.id)) {
    if (await onTree(deps, id)) return true
  }
  return false
}
