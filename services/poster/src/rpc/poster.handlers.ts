import type * as grpc from '@grpc/grpc-js'
import { REQUEST_ID_HEADER, acceptedRequestId, clientStreamHandler, identityOf, serverStreamHandler, type Logger, type ServiceImpl } from '@content/platform'
import type { v1 } from '@content/protos'
import type { CallContext } from '../core/types.js'
import type { FileAnswer } from '../services/deps.js'
import type { Originals } from '../services/originals.js'
import type { Posters } from '../services/posters.js'
import type { Stats } from '../services/stats.js'
import type { Thumbnails } from '../services/thumbnails.js'
import type { Uploads } from '../services/uploads.js'

export interface PosterServices {
  uploads: Uploads
  posters: Posters
  thumbnails: Thumbnails
  originals: Originals
  stats: Stats
}

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
export function posterHandlers (s: PosterServices, log: Logger): ServiceImpl<v1.PosterServiceHandlers> {
  return {
    Upload: clientStreamHandler<v1.UploadPart__Output, v1.UploadReceipt>('PosterService/Upload',
      (parts, signal, call) => s.uploads.upload(parts, signal, contextOf(call)), log),
    ImportFile: clientStreamHandler<v1.UploadPart__Output, v1.MediaFile>('PosterService/ImportFile',
      (parts, signal) => s.uploads.importFile(parts, signal), log),
    GetPoster: (req, call) => s.posters.getPoster(req.object_id, req.width, req.height, contextOf(call)),
    GetThumbnail: serverStreamHandler<v1.GetThumbnailRequest__Output, v1.FileChunk>('PosterService/GetThumbnail',
      (req) => fileChunks(s.thumbnails.get(req)), log),
    GetOriginal: serverStreamHandler<v1.GetOriginalRequest__Output, v1.FileChunk>('PosterService/GetOriginal',
      (req, _signal, call) => fileChunks(s.originals.get(req, contextOf(call))), log),
    GetStats: async () => s.stats.snapshot(),
  }
}
