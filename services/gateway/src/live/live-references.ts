import type { Access } from './live-access.js'
import type { LiveParams, LiveRequest } from './live-params.js'

/**
 * An object a reference names (id 0: none, or trashed), with who may read it; `readable` when the objects
 * service decided that for the caller already (reference-lookup.ts, a previous release's objects service).
 */
export interface Resolved { id: number, access?: Access | null | undefined, readable?: boolean }

/**
 * Decisions §17 with §15: `filter[parent]` and `filter[ancestor]` (an id or a nickname) become, once when
 * the stream opens, the id of an object the caller may read; one that names nothing it may read matches
 * nothing (id 0), so a stream opens alike for a missing object and an unreadable one. One look-up for
 * both, none when neither is given.
 */
export async function resolveReferences (
  request: LiveRequest, lookup: (refs: string[]) => Promise<Resolved[]>, readable: (access: Access | null | undefined) => boolean,
): Promise<LiveParams> {
  const refs = [request.parent, request.ancestor].filter((r): r is string => r !== null)
  const found = refs.length === 0 ? [] : await lookup(refs)
  const idOf = (ref: string | null): number | null => {
    if (ref === null) return null
    const r = found[refs.indexOf(ref)]
    return r !== undefined && r.id > 0 && (r.readable ?? readable(r.access)) ? r.id : 0
  }
  return { ...request, parent: idOf(request.parent), ancestor: idOf(request.ancestor) }
}
