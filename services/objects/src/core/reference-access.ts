import { parseObjectRef } from '@content/api-schema'
import { DomainError } from '@content/platform'
import { accessSnapshot, type AccessSnapshot } from './change-events.js'
import type { ObjectsStore } from './ports.js'

/** The most references one stream's filters name (decisions §17: `filter[parent]` and `filter[ancestor]`, one value each). */
export const MAX_REFERENCES = 8

export interface ReferenceAccess {
  /** 0: no such object (or trashed, or a reference out of range) */
  id: number
  access: AccessSnapshot | null
}

/**
 * Decisions §17: the objects a live stream's filters name, with who may read each (the snapshot a change
 * event carries, without places), so that the gateway decides per caller by the rules it decides events
 * by. Nothing is decided here: a service-level look-up, never shown to a client as such.
 */
export async function referenceAccess (store: Pick<ObjectsStore, 'objects'>, refs: readonly string[]): Promise<ReferenceAccess[]> {
  if (refs.length > MAX_REFERENCES) throw new DomainError('INVALID_PARAMETER', `at most ${MAX_REFERENCES} references at once`)
  const out: ReferenceAccess[] = []
  for (const raw of refs) {
    const ref = parseObjectRef(raw)
    const record = ref === null ? null : await store.objects.get(ref)
    out.push(record === null ? { id: 0, access: null } : { id: record.id, access: accessSnapshot(record, record.id, [], []) })
  }
  return out
}
