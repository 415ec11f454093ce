import { Children, nameActiveSpan, requestDurations } from '@content/platform'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'

declare module 'fastify' {
  interface FastifyRequest {
    /** the route template the request was answered under; empty until known */
    httpRoute: string
  }
}

/** The route of a request no route answers (404, 405, a malformed path): raw paths would be unbounded. */
export const UNMATCHED = 'unmatched'

const requests = requestDurations({
  name: 'http_server_request_duration_seconds',
  help: 'Duration of HTTP requests the gateway answered, until the response was sent.',
  labelNames: ['http_request_method', 'http_route', 'http_response_status_code'],
})

const children = new Children((route: string, method: string, status: number) => requests.labels(method, route, String(status)))

/** Where a request's route becomes known: kept for its duration, and named on its trace span. */
export function labelRoute (request: FastifyRequest, route: string | undefined): void {
  if (route === undefined) return
  request.httpRoute = route
  nameActiveSpan(request.method, route)
}

/** One answered request in the duration histogram. */
export function observeRequest (route: string, method: string, status: number, seconds: number): void {
  children.get(route, method, status).observe(seconds)
}

function record (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  // fastify's own clock: started when it took the request in, stopped when the response finished
  observeRequest(request.httpRoute || UNMATCHED, request.method, reply.statusCode, reply.elapsedTime / 1000)
  done()
}

/** Times every request the app answers, the not-found handler's and the probes' included. */
export function recordRequests (app: FastifyInstance): void {
  app.decorateRequest('httpRoute', '')
  app.addHook('onResponse', record)
}
