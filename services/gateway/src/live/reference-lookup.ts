import { status } from '@grpc/grpc-js'
import type { v1 } from '@content/protos'
import type { Resolved } from './live-references.js'

/** The objects service's calls a lookup makes, with the caller's options already bound. */
export interface ReferenceCalls {
  resolveAccess(refs: string[]): Promise<v1.ResolveAccessResponse__Output>
  getObject(ref: string): Promise<v1.GetObjectResponse__Output>
}

/** A read the caller may not make, or of nothing: the reference names no object it can read. */
const UNREADABLE = new Set<number>([status.NOT_FOUND, status.PERMISSION_DENIED, status.UNAUTHENTICATED])

const codeOf = (err: unknown): unknown => (err as { code?: unknown } | null)?.code

/**
 * The objects and access a stream's references name, in one call (ResolveAccess). An objects service of
 * the release before knows no ResolveAccess (a rolling update): each reference is then read as the
 * caller (GetObject), and one the caller reads is readable. A ticket's holder reads there as the request
 * does (anonymously), so during the update such a stream may match fewer objects, never more.
 */
export function referenceLookup (calls: ReferenceCalls): (refs: string[]) => Promise<Resolved[]> {
  return async (refs) => {
    try {
      return (await calls.resolveAccess(refs)).refs.map((r) => ({ id: Number(r.id), access: r.access }))
    } catch (err) {
      if (codeOf(err) !== status.UNIMPLEMENTED) throw err
      return Promise.all(refs.map(async (ref): Promise<Resolved> => {
        try {
          const id = Number((await calls.getObject(ref)).object?.id ?? 0)
          return id > 0 ? { id, readable: true } : { id: 0 }
        } catch (e) {
          if (UNREADABLE.has(codeOf(e) as number)) return { id: 0 }
          throw e
        }
      }))
    }
  }
}
