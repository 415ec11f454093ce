import type { ServiceImpl } from '@content/platform'
import type { v1 } from '@content/protos'
import { listTrash, purgeTrashed, restoreTrashed } from '../core/trash.js'
import type { ObjectsServerDeps } from './deps.js'
import { callerOf, toContentObject } from './object.mapper.js'
import { sendChangeSeq } from './read-deps.js'
import { writeDepsOf } from './writes.handlers.js'

type TrashMethods = 'ListTrash' | 'RestoreTrashed' | 'PurgeTrashed'

/** The trash (decisions §16): its list is never cached (it answers each writer's own), its changes are writes. */
export function trashHandlers (deps: ObjectsServerDeps): Pick<ServiceImpl<v1.ObjectServiceHandlers>, TrashMethods> {
  const w = writeDepsOf(deps)
  return {
    ListTrash: async (req) => {
      const { items, paging } = await listTrash(w, callerOf(req.caller), req.page)
      return { objects: items.map((t) => ({ object: toContentObject(t.object), deleted: t.deleted, user_id: t.user_id })), paging }
    },
    RestoreTrashed: async (req, call) => {
      const object = await restoreTrashed(w, callerOf(req.caller), req.object_id, req.body_json)
      sendChangeSeq(call, deps.store)
      return { object: toContentObject(object), created: false }
    },
    PurgeTrashed: async (req, call) => {
      await purgeTrashed(w, callerOf(req.caller), req.object_id)
      sendChangeSeq(call, deps.store)
      return {}
    },
  }
}
