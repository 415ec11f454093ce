import type * as grpc from '@grpc/grpc-js'
import type { ServiceImpl } from '@content/platform'
import type { v1 } from '@content/protos'
import { importFixtures, setPermissions } from '../core/fixtures.import.js'
import * as reads from '../core/objects.reader.js'
import type { FeedMessage } from '../core/change-feed.js'
import type { ObjectsServerDeps } from './deps.js'
import { callerOf, toContentObject, toObjectList } from './object.mapper.js'
import { sendChangeSeq, withDependencies } from './read-deps.js'
import { revisionHandlers } from './revisions.handlers.js'
import { trashHandlers } from './trash.handlers.js'
import { writeHandlers } from './writes.handlers.js'

export function objectsHandlers (deps: ObjectsServerDeps): ServiceImpl<v1.ObjectServiceHandlers> {
  const { reads: r } = deps
  return {
    GetObject: async (req, call) => ({ object: toContentObject(await withDependencies(call, r, (d) => reads.getObject(d, callerOf(req.caller), req))) }),
    ListObjects: async (req, call) => toObjectList(await withDependencies(call, r, (d) => reads.listObjects(d, callerOf(req.caller), req.page, req.filter, req.query))),
    GetRelationSummary: async (req, call) => withDependencies(call, r, (d) => reads.relationSummary(d, callerOf(req.caller), req)),
    ListRelated: async (req, call) => toObjectList(await withDependencies(call, r, (d) => reads.listRelated(d, callerOf(req.caller), req))),
    GetRelation: async (req, call) => {
      const meta = await withDependencies(call, r, (d) => reads.getRelation(d, callerOf(req.caller), req))
      return { priority: meta.priority ?? undefined, params_json: meta.params_json }
    },
    ...writeHandlers(deps),
    ...trashHandlers(deps),
    ...revisionHandlers(deps),
    WatchChanges: watchChanges(deps),
    ImportFixtures: async (req, call) => {
      const refs = await importFixtures(deps.store, { fixtures_json: req.fixtures_json, known_groups: req.known_groups, dry_run: req.dry_run }, deps.now())
      sendChangeSeq(call, deps.store)
      return { refs }
    },
    SetPermissions: async (req, call) => {
      await setPermissions(deps.store, req.object_id, req.read_groups, req.write_groups)
      sendChangeSeq(call, deps.store)
      return {}
    },
  }
}

/**
 * Replays the events after the subscriber's position (or says `reset` when they are not retained), then
 * follows new ones, until the client goes away. The first message always comes at once: it tells the
 * subscriber the feed is live. Events published while the replay is read wait behind it, in order.
 */
function watchChanges (deps: ObjectsServerDeps): grpc.handleServerStreamingCall<v1.WatchChangesRequest__Output, v1.Change> {
  return (call) => {
    const { feed } = deps
    let waiting: FeedMessage[] | null = []
    const unsubscribe = feed.subscribe((message) => {
      if (waiting) waiting.push(message)
      else call.write(message)
    }, () => { call.end() })
    const stop = () => { unsubscribe() }
    call.on('cancelled', stop)
    call.on('close', stop)
    call.on('error', stop)
    const position = feed.position
    feed.resume(call.request.store_id, Number(call.request.after_seq)).then((replay) => {
      const first: FeedMessage[] = replay ?? [{ store_id: feed.storeId, reset: true, clock: false, events: [], seq: position }]
      if (first.length === 0) first.push({ store_id: feed.storeId, reset: false, clock: false, events: [], seq: position })
      for (const message of [...first, ...(waiting ?? [])]) call.write(message)
      waiting = null
    }, (err: unknown) => {
      deps.log.error({ err }, 'change feed replay failed')
      call.destroy(err instanceof Error ? err : new Error(String(err)))
    })
  }
}
