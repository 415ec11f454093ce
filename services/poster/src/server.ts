import { createRpcServer, type Logger, type RpcServer } from '@content/platform'
import { loadContentProtos } from '@content/protos'
import { posterHandlers } from './rpc/poster.handlers.js'

export function buildPosterServer (log: Logger): RpcServer {
  const rpc = createRpcServer(log)
  rpc.add(loadContentProtos().content.v1.PosterService.service, posterHandlers(), 'content.v1.PosterService')
  return rpc
}
