// A gRPC backend that does nothing: one unary method answering fixed bytes (FLOOR_BODY), no protobuf,
// no store, no checks. With ceiling.mjs's CEILING_BACKEND it gives the floor of one backend call per
// request; its Batch method, with CEILING_COALESCE, the floor of a gateway whose requests of one turn share
// one call. Prints its port.
import { fileURLToPath } from 'node:url'
import * as grpc from '@grpc/grpc-js'

const same = (bytes) => bytes
/** One unary method whose messages are the bytes as they are. */
export const FLOOR_SERVICE = {
  Get: {
    path: '/floor.Floor/Get', requestStream: false, responseStream: false,
    requestSerialize: same, requestDeserialize: same, responseSerialize: same, responseDeserialize: same,
  },
  /** the coalesced floor's: a count in (uint32), that many answers out, each its length (uint32) and bytes */
  Batch: {
    path: '/floor.Floor/Batch', requestStream: false, responseStream: false,
    requestSerialize: same, requestDeserialize: same, responseSerialize: same, responseDeserialize: same,
  },
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const body = Buffer.from(process.env.FLOOR_BODY ?? '{}')
  const server = new grpc.Server()
  const framed = Buffer.concat([Buffer.alloc(4), body])
  framed.writeUInt32LE(body.length)
  server.addService(FLOOR_SERVICE, {
    Get: (_call, callback) => callback(null, body),
    Batch: (call, callback) => callback(null, Buffer.concat(Array.from({ length: call.request.readUInt32LE(0) }, () => framed))),
  })
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err
    process.stdout.write(`${port}\n`)
  })
  process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)))
}
