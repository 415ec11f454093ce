import type { v1 } from '@content/protos'
import * as reads from '../core/objects.reader.js'
import type { ReadDeps } from '../core/read-context.js'
import * as tree from '../core/tree.reader.js'
import { includedOf, readerOf, toContentObject, toObjectList } from './object.mapper.js'
import { withDependencies, type HeaderSink } from './read-deps.js'

/**
 * The reads a coalesced batch may carry, written once: their unary methods (ObjectService.GetObject,
 * ListObjects, TreeService.ListTree) are these functions, and a batch serves each member with the same
 * one, so a member answers exactly as its own call would.
 */
export function coalescibleReads (r: ReadDeps) {
  return {
    GetObject: async (req: v1.GetObjectRequest__Output, call: HeaderSink): Promise<v1.GetObjectResponse> => {
      const view = await withDependencies(call, r, (d) => reads.getObject(d, readerOf(req.caller, req.query), req))
      return { object: toContentObject(view), included: includedOf([view]) }
    },
    ListObjects: async (req: v1.ListObjectsRequest__Output, call: HeaderSink): Promise<v1.ObjectList> =>
      toObjectList(await withDependencies(call, r, (d) => reads.listObjects(d, readerOf(req.caller, req.query), req.page, req.filter, req.query))),
    ListTree: async (req: v1.ListTreeRequest__Output, call: HeaderSink): Promise<v1.ObjectList> =>
      toObjectList(await withDependencies(call, r, (d) => tree.listTree(d, readerOf(req.caller, req.query), req))),
  }
}
