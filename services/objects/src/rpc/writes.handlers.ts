import type { ServiceImpl } from '@content/platform'
import type { v1 } from '@content/protos'
import * as links from '../core/links.writer.js'
import { deleteObject, saveObject } from '../core/objects.writer.js'
import type { WriteDeps } from '../core/write-context.js'
import type { ObjectsServerDeps } from './deps.js'
import { callerOf, toContentObject } from './object.mapper.js'
import { sendChangeSeq } from './read-deps.js'

type WriteMethods = 'SaveObject' | 'DeleteObject' | 'SaveRelations' | 'ReplaceRelation' | 'DeleteRelation'

export function writeDepsOf (deps: ObjectsServerDeps): WriteDeps {
  return { reads: deps.reads, writerGroups: deps.writerGroups, now: deps.now }
}

export function writeHandlers (deps: ObjectsServerDeps): Pick<ServiceImpl<v1.ObjectServiceHandlers>, WriteMethods> {
  const w = writeDepsOf(deps)
  return {
    SaveObject: async (req, call) => {
      const saved = await saveObject(w, callerOf(req.caller), req.data_json, req.writable_types)
      sendChangeSeq(call, deps.store)
      return { object: toContentObject(saved.object), created: saved.created }
    },
    DeleteObject: async (req, call) => {
      await deleteObject(w, callerOf(req.caller), req.object_id)
      sendChangeSeq(call, deps.store)
      return {}
    },
    SaveRelations: async (req, call) => {
      const items = await links.saveRelations(w, callerOf(req.caller), req.object_id, req.name, req.items)
      sendChangeSeq(call, deps.store)
      return { items: items.map((i) => ({ related_id: i.related_id, priority: i.priority ?? 0, params_json: i.params ?? '', created: i.created })) }
    },
    ReplaceRelation: async (req, call) => {
      const saved = await links.replaceRelation(w, callerOf(req.caller), req.object_id, req.name, req.related_id, req.priority, req.params_json)
      sendChangeSeq(call, deps.store)
      return { priority: saved.priority ?? undefined, params_json: saved.params ?? '' }
    },
    DeleteRelation: async (req, call) => {
      await links.deleteRelation(w, callerOf(req.caller), req.object_id, req.name, req.related_id)
      sendChangeSeq(call, deps.store)
      return {}
    },
  }
}
