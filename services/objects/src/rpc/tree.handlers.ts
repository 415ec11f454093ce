import type { ServiceImpl } from '@content/platform'
import type { v1 } from '@content/protos'
import * as links from '../core/links.writer.js'
import * as tree from '../core/tree.reader.js'
import type { ObjectsServerDeps } from './deps.js'
import { coalescibleReads } from './coalescible-reads.js'
import { answerOnce, outcomeOf } from './idempotency.js'
import { callerOf } from './object.mapper.js'
import { sendChangeSeq, withDependencies } from './read-deps.js'
import { writeDepsOf } from './writes.handlers.js'

export function treeHandlers (deps: ObjectsServerDeps): ServiceImpl<v1.TreeServiceHandlers> {
  const { reads } = deps
  const w = writeDepsOf(deps)
  return {
    ListTree: coalescibleReads(reads).ListTree,
    GetChildPosition: async (req, call) => ({ priority: await withDependencies(call, reads, (d) => tree.childPosition(d, callerOf(req.caller), req)) }),
    SaveChildren: async (req, call) => {
      const caller = callerOf(req.caller)
      return answerOnce(deps, call, caller, req,
        async (claim) => ({ items: await links.saveChildren(w, caller, req.object_id, req.body_json, claim) }),
        async (outcome) => ({ items: outcomeOf(outcome, 'children').items }))
    },
    UpdateChild: async (req, call) => {
      const priority = await links.updateChild(w, callerOf(req.caller), req.object_id, req.child_id, req.body_json)
      sendChangeSeq(call, deps.store)
      return { priority }
    },
    RemoveChild: async (req, call) => {
      await links.removeChild(w, callerOf(req.caller), req.object_id, req.child_id)
      sendChangeSeq(call, deps.store)
      return {}
    },
  }
}
