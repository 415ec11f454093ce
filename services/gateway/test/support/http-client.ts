import { once } from 'node:events'
import { request, type ClientRequest, type IncomingMessage } from 'node:http'
import type { FastifyInstance } from 'fastify'

/** Starts the app on a free loopback port; streaming behaviour needs a real socket, not inject(). */
export async function listen (app: FastifyInstance): Promise<{ host: string, port: number }> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('not listening on TCP')
  return { host: '127.0.0.1', port: address.port }
}

export interface Answer { status: number, headers: IncomingMessage['headers'], body: Buffer }

/** The whole answer of a response. */
export async function readAnswer (res: IncomingMessage): Promise<Answer> {
  const chunks: Buffer[] = []
  for await (const chunk of res) chunks.push(chunk as Buffer)
  return { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }
}

export interface Upload {
  req: ClientRequest
  response: Promise<IncomingMessage>
  /** bytes handed to the socket so far */
  sent: () => number
  /** writes `count` chunks (waiting for drain), unless the response arrived or the socket closed first */
  send (chunk: Buffer, count: number, pauseMs?: number): Promise<void>
  closed: Promise<void>
}

/** A POST whose body the test writes piece by piece. */
export function openUpload (target: { host: string, port: number }, path: string, headers: Record<string, string | number>): Upload {
  const req = request({ ...target, method: 'POST', path, headers })
  let sent = 0
  let answered = false
  let closed = false
  req.on('error', () => {}) // the server may close while the test still writes: that is the point of some tests
  const response = new Promise<IncomingMessage>((resolve) => req.once('response', (res) => { answered = true; resolve(res) }))
  const closedP = new Promise<void>((resolve) => req.once('close', () => { closed = true; resolve() }))
  return {
    req,
    response,
    sent: () => sent,
    closed: closedP,
    async send (chunk, count, pauseMs = 0) {
      for (let i = 0; i < count && !answered && !closed; i++) {
        sent += chunk.length
        if (!req.write(chunk)) await Promise.race([once(req, 'drain'), closedP, response])
        if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs))
      }
    },
  }
}
