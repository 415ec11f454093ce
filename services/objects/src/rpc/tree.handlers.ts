import type { ServiceImpl } from '@content/platform'
import type { v1 } from '@content/protos'
import * as links from '../core/links.writer.js'
import * as tree from '../core/tree.reader.js'
import type { ObjectsServerDeps } from './deps.js'
import { callerOf, toObjectList } from './object.mapper.js'
import { writeDepsOf } from './writes.handlers.js'

export function treeHandlers (deps: ObjectsServerDeps): ServiceImpl<v1.TreeServiceHandlers> {
  const { reads } = deps
  const w = writeDepsOf(deps)
  return {
    ListTree: async (req) => toObjectList(await tree.listTree(reads, callerOf(req.caller), req.object_id, req)),
    GetChildPosition: async (req) => ({ priority: await tree.childPosition(reads, callerOf(req.caller), req.object_id, req.child_id) }),
    SaveChildren: async (req) => ({ items: await links.saveChildren(w, callerOf(req.caller), req.object_id, req.items) }),
    UpdateChild: async (req) => ({ priority: await links.updateChild(w, callerOf(req.caller), req.object_id, req.child_id, req.priority) }),
    RemoveChild: async (req) => {
      await links.removeChild(w, callerOf(req.caller), req.object_id, req.child_id)
      return {}
    },
  }
}
