import type { ServiceImpl } from '@content/platform'
import type { v1 } from '@content/protos'
import { getRevision, listRevisions, restoreRevision } from '../core/object-history.js'
import type { RevisionRecord } from '../core/revisions.js'
import type { ObjectsServerDeps } from './deps.js'
import { callerOf, toContentObject } from './object.mapper.js'
import { sendChangeSeq } from './read-deps.js'
import { writeDepsOf } from './writes.handlers.js'

type RevisionMethods = 'ListRevisions' | 'GetRevision' | 'RestoreRevision'

const toRevision = (r: RevisionRecord): v1.Revision => ({ revision: r.revision, created: r.created, user_id: r.user_id, changed: r.changed, data_json: JSON.stringify(r.data) })

/** Revisions (decisions §16): their reads are never cached (they need write rights); a restore is a write. */
export function revisionHandlers (deps: ObjectsServerDeps): Pick<ServiceImpl<v1.ObjectServiceHandlers>, RevisionMethods> {
  const w = writeDepsOf(deps)
  return {
    ListRevisions: async (req) => {
      const { revisions, paging } = await listRevisions(w, callerOf(req.caller), req.object_id, req.page)
      return { revisions: revisions.map(toRevision), paging }
    },
    GetRevision: async (req) => ({ revision: toRevision(await getRevision(w, callerOf(req.caller), req.object_id, Number(req.revision))) }),
    RestoreRevision: async (req, call) => {
      const object = await restoreRevision(w, callerOf(req.caller), req.object_id, Number(req.revision))
      sendChangeSeq(call, deps.store)
      return { object: toContentObject(object), created: false }
    },
  }
}
