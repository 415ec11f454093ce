import type * as grpc from '@grpc/grpc-js'
import { REQUEST_ID_HEADER, acceptedRequestId, clientStreamHandler, identityOf, serverStreamHandler, type ServiceImpl } from '@content/platform'
import type { v1 } from '@content/protos'
import type { CallContext } from '../core/types.js'
import type { FileAnswer, ServiceDeps } from '../services/deps.js'
import { getOriginal } from '../services/originals.js'
import { getPoster } from '../services/posters.js'
import { statsSnapshot } from '../services/stats.js'
import { getThumbnail } from '../services/thumbnails.js'
import { importFile, upload } from '../services/uploads.js'

/**
 * What a call to the objects service on this call's behalf carries: the user's access token (the
 * objects service checks it itself) and the gateway's request id, so log lines join up.
 */
function contextOf (call: { metadata: grpc.Metadata }): CallContext {
  const id = acceptedRequestId(call.metadata.get(REQUEST_ID_HEADER)[0])
  const { userToken } = identityOf(call)
  return { ...(id === undefined ? {} : { requestId: id }), ...(userToken === undefined ? {} : { userToken }) }
}

/** A file answer as a FileChunk stream: the header, then the bytes. */
async function * fileChunks (answer: Promise<FileAnswer>): AsyncGenerator<v1.FileChunk> {
  const { header, body } = await answer
  yield { header }
  if (body !== null) for await (const chunk of body) yield { chunk }
}

/** PosterService: proto in, services, proto out. */
export function posterHandlers (deps: ServiceDeps): ServiceImpl<v1.PosterServiceHandlers> {
  const { log } = deps
  return {
    Upload: clientStreamHandler<v1.UploadPart__Output, v1.UploadReceipt>('PosterService/Upload',
      (parts, signal, call) => upload(deps, parts, signal, contextOf(call)), log),
    ImportFile: clientStreamHandler<v1.UploadPart__Output, v1.MediaFile>('PosterService/ImportFile',
      (parts, signal) => importFile(deps, parts, signal), log),
    GetPoster: (req, call) => getPoster(deps, req.object_id, req.width, req.height, contextOf(call)),
    GetThumbnail: serverStreamHandler<v1.GetThumbnailRequest__Output, v1.FileChunk>('PosterService/GetThumbnail',
      (req) => fileChunks(getThumbnail(deps, req)), log),
    GetOriginal: serverStreamHandler<v1.GetOriginalRequest__Output, v1.FileChunk>('PosterService/GetOriginal',
      (req, _signal, call) => fileChunks(getOriginal(deps, req, contextOf(call))), log),
    GetStats: async () => statsSnapshot(deps.stats, deps.gate),
  }
}
