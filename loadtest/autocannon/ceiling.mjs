// The "ceiling": a bare fastify server answering fixed bytes with no work at all — CEILING_BODY (text)
// or the bytes of the file CEILING_FILE, with CEILING_TYPE as their Content-Type.
// With CEILING_BACKEND (the port of call-floor-backend.mjs), every request first makes one unary gRPC
// call there, through a client with the system's channel settings, and answers the bytes it got back:
// the floor of a gateway that makes one backend call per request, whatever that call does. With
// CEILING_COALESCE as well, the requests of one event-loop turn share one call: the coalescing floor.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const body = process.env.CEILING_FILE ? readFileSync(process.env.CEILING_FILE) : (process.env.CEILING_BODY ?? '{}')
const type = process.env.CEILING_TYPE ?? 'application/json; charset=utf-8'
const app = Fastify({ logger: false })
if (process.env.CEILING_BACKEND) {
  // loaded only here: the bare ceiling stays a process with fastify alone in it
  const grpc = await import('@grpc/grpc-js')
  const { CHANNEL_OPTIONS } = await import('@content/platform')
  const { FLOOR_SERVICE } = await import('./call-floor-backend.mjs')
  const Floor = grpc.makeGenericClientConstructor(FLOOR_SERVICE, 'Floor')
  const backend = new Floor(`127.0.0.1:${process.env.CEILING_BACKEND}`, grpc.credentials.createInsecure(), CHANNEL_OPTIONS)
  const nothing = Buffer.alloc(0)
  // CEILING_COALESCE: the requests of one event-loop turn share one call (as COALESCE_READS does)
  let waiting = []
  const flush = () => {
    const replies = waiting
    waiting = []
    const count = Buffer.alloc(4)
    count.writeUInt32LE(replies.length)
    backend.Batch(count, { deadline: Date.now() + 5_000 }, (err, bytes) => {
      let at = 0
      for (const reply of replies) {
        if (err) { reply.code(502).send(err.message); continue }
        const length = bytes.readUInt32LE(at)
        reply.header('content-type', type).send(bytes.subarray(at + 4, at + 4 + length))
        at += 4 + length
      }
    })
  }
  if (process.env.CEILING_COALESCE) app.get('/*', (_req, reply) => { if (waiting.length === 0) setImmediate(flush); waiting.push(reply) })
  else app.get('/*', (_req, reply) => {
    backend.Get(nothing, { deadline: Date.now() + 5_000 }, (err, bytes) => {
      if (err) reply.code(502).send(err.message)
      else reply.header('content-type', type).send(bytes)
    })
  })
} else {
  app.get('/*', (_req, reply) => { reply.header('content-type', type).send(body) })
}
await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`${app.server.address().port}\n`)
process.on('SIGTERM', () => app.close().then(() => process.exit(0)))
