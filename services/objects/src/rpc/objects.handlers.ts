import type * as grpc from '@grpc/grpc-js'
import type { ServiceImpl } from '@content/platform'
import type { v1 } from '@content/protos'
import { importFixtures, setPermissions } from '../core/fixtures.import.js'
import * as reads from '../core/objects.reader.js'
import type { ObjectsServerDeps } from './deps.js'
import { callerOf, toContentObject, toObjectList } from './object.mapper.js'
import { writeHandlers } from './writes.handlers.js'

export function objectsHandlers (deps: ObjectsServerDeps): ServiceImpl<v1.ObjectServiceHandlers> {
  const { reads: r } = deps
  return {
    GetObject: async (req) => ({ object: toContentObject(await reads.getObject(r, callerOf(req.caller), req.object_id)) }),
    ListObjects: async (req) => toObjectList(await reads.listObjects(r, callerOf(req.caller), req.page, req.filter)),
    GetRelationSummary: async (req) => ({ relations: await reads.relationSummary(r, callerOf(req.caller), req.object_id) }),
    ListRelated: async (req) => toObjectList(await reads.listRelated(r, callerOf(req.caller), req.object_id, req.name, req.page, req.filter)),
    GetRelation: async (req) => {
      const meta = await reads.getRelation(r, callerOf(req.caller), req.object_id, req.name, req.related_id)
      return { priority: meta.priority ?? undefined, params_json: meta.params_json }
    },
    ...writeHandlers(deps),
    WatchChanges: watchChanges(deps),
    ImportFixtures: async (req) => ({
      refs: await importFixtures(deps.store, { fixtures_json: req.fixtures_json, known_groups: req.known_groups, dry_run: req.dry_run }, deps.now()),
    }),
    SetPermissions: async (req) => {
      await setPermissions(deps.store, req.object_id, req.read_groups, req.write_groups)
      return {}
    },
  }
}

/** Streams the current generation at once, then every change, until the client goes away. */
function watchChanges (deps: ObjectsServerDeps): grpc.handleServerStreamingCall<v1.WatchChangesRequest__Output, v1.Change> {
  return (call) => {
    call.write(deps.feed.current())
    const unsubscribe = deps.feed.subscribe((change) => { call.write(change) }, () => { call.end() })
    const stop = () => { unsubscribe() }
    call.on('cancelled', stop)
    call.on('close', stop)
    call.on('error', stop)
  }
}
