import type { FastifyInstance } from 'fastify'
import type { FakeBackends } from './fake-backends.js'
import { buildTestApp, type TestAppOptions } from './test-app.js'

/**
 * A gateway listening on a port: the lanes sit in front of fastify, so their tests speak HTTP (inject
 * would call fastify directly). `fastifySaw` counts the requests that reached fastify: a request a lane
 * answered never does.
 */
export interface Listening { app: FastifyInstance, base: string, fastifySaw: () => number }

export async function listeningApp (backends: FakeBackends, options: TestAppOptions): Promise<Listening> {
  const app = await buildTestApp(backends, options)
  let saw = 0
  app.addHook('onRequest', (_request, _reply, done) => { saw += 1; done() })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('not listening on a port')
  return { app, base: `http://127.0.0.1:${address.port}`, fastifySaw: () => saw }
}

/** Every header but the request's own id and the date, with the body. */
export async function answerOf (res: Response) {
  const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== 'x-request-id' && name !== 'date'))
  return { status: res.status, headers, body: await res.text() }
}

/** How many GetObject calls the objects fake answered. */
export const backendReads = (backends: FakeBackends): number => backends.calls.filter((c) => c.method === 'objects.GetObject').length
