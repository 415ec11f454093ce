import type { ServiceImpl } from '@content/platform'
import type { v1 } from '@content/protos'
import * as links from '../core/links.writer.js'
import { saveObject, savedObject, writeStatusOf, type SavedObject } from '../core/objects.writer.js'
import { trashObject } from '../core/trash.js'
import type { WriteDeps } from '../core/write-context.js'
import type { SavedRelationRow } from '../core/types.js'
import type { ObjectsServerDeps } from './deps.js'
import { answerOnce, outcomeOf } from './idempotency.js'
import { callerOf, toContentObject } from './object.mapper.js'
import { sendChangeSeq, type HeaderSink } from './read-deps.js'

type WriteMethods = 'SaveObject' | 'DeleteObject' | 'SaveRelations' | 'ReplaceRelation' | 'DeleteRelation'

export function writeDepsOf (deps: ObjectsServerDeps): WriteDeps {
  return { reads: deps.reads, writerGroups: deps.writerGroups, now: deps.now }
}

/**
 * ObjectService.SaveObject, written once: its unary method is this function, and a batch of a gateway
 * turn's saves (CallBatch) serves each member with it, so a member answers exactly as its own call would.
 */
export function saveObjectMethod (deps: ObjectsServerDeps): (req: v1.SaveObjectRequest__Output, call: HeaderSink) => Promise<v1.SaveObjectResponse> {
  const w = writeDepsOf(deps)
  return async (req, call) => {
    const caller = callerOf(req.caller)
    return answerOnce(deps, call, caller, req,
      async (claim) => toSaveObjectResponse(await saveObject(w, caller, req.body_json, req.writable_types, claim, writeStatusOf(req.status))),
      async (outcome) => {
        const { id, created } = outcomeOf(outcome, 'object')
        return toSaveObjectResponse(await savedObject(w, caller, id, created))
      })
  }
}

export function writeHandlers (deps: ObjectsServerDeps): Pick<ServiceImpl<v1.ObjectServiceHandlers>, WriteMethods> {
  const w = writeDepsOf(deps)
  return {
    SaveObject: saveObjectMethod(deps),
    DeleteObject: async (req, call) => {
      // decisions §16: a delete moves the object to the trash
      await trashObject(w, callerOf(req.caller), req.object_id)
      sendChangeSeq(call, deps.store)
      return {}
    },
    SaveRelations: async (req, call) => {
      const caller = callerOf(req.caller)
      return answerOnce(deps, call, caller, req,
        async (claim) => toSaveRelationsResponse(await links.saveRelations(w, caller, req.object_id, req.name, req.body_json, claim)),
        async (outcome) => toSaveRelationsResponse(outcomeOf(outcome, 'relations').items))
    },
    ReplaceRelation: async (req, call) => {
      const saved = await links.replaceRelation(w, callerOf(req.caller), req.object_id, req.name, req.related_id, req.body_json)
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

const toSaveObjectResponse = (saved: SavedObject): v1.SaveObjectResponse => ({ object: toContentObject(saved.object), created: saved.created })

const toSaveRelationsResponse = (items: SavedRelationRow[]): v1.SaveRelationsResponse => ({
  items: items.map((i) => ({ related_id: i.related_id, priority: i.priority ?? 0, params_json: i.params ?? '', created: i.created })),
})
