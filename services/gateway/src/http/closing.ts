import type { FastifyInstance } from 'fastify'
import { HttpError } from './errors.js'

/** How soon a client may try again: another replica, or this one restarted, answers by then. */
const RETRY_AFTER_SECONDS = '1'

/**
 * A request that arrives while the gateway shuts down (on a keep-alive connection, or pipelined) is
 * answered 503 in the error body of decisions §2 with Retry-After, instead of fastify's own 503 body
 * (return503OnClosing is off). It runs after CORS's hook, so browsers can read the answer; fastify
 * itself marks such answers `Connection: close`.
 */
export function answerClosing (app: FastifyInstance): void {
  let closing = false
  app.addHook('preClose', async () => { closing = true })
  app.addHook('onRequest', async () => {
    if (closing) {
      throw new HttpError('SERVICE_UNAVAILABLE', 'the gateway is shutting down; try again', null, { 'retry-after': RETRY_AFTER_SECONDS })
    }
  })
}
