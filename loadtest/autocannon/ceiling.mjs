// The "ceiling": a bare fastify server answering fixed bytes with no work at all.
import Fastify from 'fastify'

const body = process.env.CEILING_BODY ?? '{}'
const app = Fastify({ logger: false })
app.get('/*', (_req, reply) => { reply.header('content-type', 'application/json; charset=utf-8').send(body) })
await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`${app.server.address().port}\n`)
process.on('SIGTERM', () => app.close().then(() => process.exit(0)))
