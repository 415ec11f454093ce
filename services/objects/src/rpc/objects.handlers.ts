import { identityOf, type ServiceImpl } from '@content/platform'
import type { v1 } from '@content/protos'
import type { FeedMessage } from '../core/change-feed.js'
import { exportPage } from '../core/export.reader.js'
import { importFixtures, setPermissions } from '../core/fixtures.import.js'
import * as reads from '../core/objects.reader.js'
import { createPreview, readPreview } from '../core/preview.js'
import { referenceAccess } from '../core/reference-access.js'
import type { ObjectsServerDeps } from './deps.js'
import { callerOf, includedOf, readerOf, toContentObject, toObjectList } from './object.mapper.js'
import { coalescibleReads } from './coalescible-reads.js'
import { callBatchHandler } from './call-batch.handler.js'
import { sendChangeSeq, withDependencies } from './read-deps.js'
import { revisionHandlers } from './revisions.handlers.js'
import { trashHandlers } from './trash.handlers.js'
import { watchChangesHandler } from './watch-changes.handler.js'
import { writeDepsOf, writeHandlers } from './writes.handlers.js'

/** `encodeFeed`: a change-feed message's bytes, encoded once for every stream (feed-encoding.ts) */
export function objectsHandlers (deps: ObjectsServerDeps, encodeFeed: (message: FeedMessage) => Buffer): ServiceImpl<v1.ObjectServiceHandlers> {
  const { reads: r } = deps
  const coalescible = coalescibleReads(r)
  const batch = callBatchHandler(deps)
  return {
    GetObject: coalescible.GetObject,
    ListObjects: coalescible.ListObjects,
    CallBatch: batch,
    ReadBatch: batch,
    GetRelationSummary: async (req, call) => withDependencies(call, r, (d) => reads.relationSummary(d, callerOf(req.caller), req)),
    ListRelated: async (req, call) => toObjectList(await withDependencies(call, r, (d) => reads.listRelated(d, readerOf(req.caller, req.query), req))),
    GetRelation: async (req, call) => {
      const meta = await withDependencies(call, r, (d) => reads.getRelation(d, callerOf(req.caller), req))
      return { priority: meta.priority ?? undefined, params_json: meta.params_json }
    },
    CreatePreview: async (req) => createPreview(writeDepsOf(deps), deps.preview, callerOf(req.caller), req.object_id),
    // a preview answer is never shared (the gateway does not cache it), so it notes no dependencies
    // the reader is the writer's current access the gateway traded the token for (its x-user-token)
    GetPreview: async (req, call) => {
      const view = await readPreview(writeDepsOf(deps), deps.preview, identityOf(call).caller, req.object_id, req.token, req.query)
      return { object: toContentObject(view), included: includedOf([view]) }
    },
    ...writeHandlers(deps),
    ...trashHandlers(deps),
    ...revisionHandlers(deps),
    WatchChanges: watchChangesHandler(deps, encodeFeed),
    ResolveAccess: async (req) => ({ refs: (await referenceAccess(deps.store, req.refs)).map((r) => ({ id: r.id, access: r.access ?? undefined })) }),
    ImportFixtures: async (req, call) => {
      const imported = await importFixtures(deps.store, { fixtures_json: req.fixtures_json, known_groups: req.known_groups, dry_run: req.dry_run }, deps.now())
      sendChangeSeq(call, deps.store)
      return req.answer_ref_ids ? { ref_ids: imported.refIds } : { refs: imported.refs }
    },
    ExportObjects: async (req) => {
      const page = await exportPage(r, Number(req.after_id), req.limit)
      return {
        next_after_id: page.next_after_id, done: page.done,
        objects: page.objects.map((o) => ({
          object: toContentObject(o.view), read_groups: o.view.read_groups, write_groups: o.view.write_groups, parents: o.parents,
          relations: o.relations.map((rel) => ({ name: rel.name, related_id: rel.related_id, priority: rel.priority ?? undefined, params_json: rel.params ?? '' })),
        })),
      }
    },
    SetPermissions: async (req, call) => {
      await setPermissions(deps.store, req.object_id, req.read_groups, req.write_groups)
      sendChangeSeq(call, deps.store)
      return {}
    },
  }
}
