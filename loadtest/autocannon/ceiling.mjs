// The "ceiling": a bare fastify server answering fixed bytes with no work at all — CEILING_BODY (text)
// or the bytes of the file CEILING_FILE, with CEILING_TYPE as their Content-Type.
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const body = process.env.CEILING_FILE ? readFileSync(process.env.CEILING_FILE) : (process.env.CEILING_BODY ?? '{}')
const type = process.env.CEILING_TYPE ?? 'application/json; charset=utf-8'
const app = Fastify({ logger: false })
app.get('/*', (_req, reply) => { reply.header('content-type', type).send(body) })
await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`${app.server.address().port}\n`)
process.on('SIGTERM', () => app.close().then(() => process.exit(0)))
