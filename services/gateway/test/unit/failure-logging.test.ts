import { Metadata, status } from '@grpc/grpc-js'
import { DomainError } from '@content/platform'
import type { FastifyRequest } from 'fastify'
import { describe, expect, it } from 'vitest'
import type { Access } from '../../src/http/access-log.js'
import { HttpError, WriteOutcomeUnknown, describeError, logFailure } from '../../src/http/errors.js'

/** A request whose logger records each line's level, message and fields. */
function requestFor (socketGone: boolean) {
  const lines: { level: string, msg: string, fields: Record<string, unknown> }[] = []
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) => { lines.push({ level, msg, fields }) }
  const log = { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') }
  const access: { status: number, reason?: string, cause?: string | undefined }[] = []
  const server = { accessLog: (a: Access) => { access.push({ status: a.status, reason: a.failure?.reason, cause: a.failure?.cause }) } }
  return { lines, access, request: { log, raw: { destroyed: socketGone }, server, accessLogged: false } as unknown as FastifyRequest }
}

/** What a grpc-js client throws for a call that failed in transport (no reason from a backend). */
const transport = (code: number, details: string) => Object.assign(new Error(`${code} ${details}`), { code, details, metadata: new Metadata() })

/** What Node and fastify raise for a body the client stopped sending (socket closed, or framing broken). */
const aborted = () => Object.assign(new Error('aborted'), { code: 'ECONNRESET', statusCode: 400 })

describe('a failed request is logged as loud as what it says about the system', () => {
  it.each([
    ['an internal error (the system got it wrong)', new TypeError('boom'), false, 'error', 500],
    ['a backend that is down', transport(status.UNAVAILABLE, 'No connection established'), false, 'warn', 503],
    ['a backend that did not answer in time', transport(status.DEADLINE_EXCEEDED, 'Deadline exceeded'), false, 'warn', 504],
    ['a write whose backend dropped the connection', new WriteOutcomeUnknown(transport(status.UNAVAILABLE, 'Connection dropped')), false, 'warn', 503],
    ['a body the client stopped sending', aborted(), true, 'access line only', 400],
    ['a call cancelled because the client went away', transport(status.CANCELLED, 'Cancelled on client'), true, 'access line only', 499],
    ['an invalid request from a client still there', new HttpError('INVALID_PARAMETER', 'bad page'), false, 'debug', 400],
    ['a domain refusal', new DomainError('OBJECT_NOT_FOUND', 'no object'), false, 'debug', 404],
  ] as const)('%s → %s (%i)', (_label, err, socketGone, level, httpStatus) => {
    const { lines, access, request } = requestFor(socketGone)
    const described = describeError(err)
    expect(described.status).toBe(httpStatus)
    logFailure(request, err, described)
    expect(lines.map((l) => l.level)).toEqual(level === 'access line only' ? [] : [level])
    // the access line says why; warn lines and the access line of a failure of the system or the connection name its cause in a few words, never a stack
    expect(request.failure?.reason).toBe(described.reason)
    if (level === 'warn') expect(String(lines[0]?.fields.cause)).toMatch(/^\d+ \w+/)
    if (level !== 'debug') expect(request.failure?.cause).toMatch(/^(ECONNRESET aborted|\d+ \w+|boom)/)
    else expect(request.failure?.cause).toBeUndefined()
    // a client that left gets its access line now (its answer will not finish), once
    if (socketGone) {
      expect(access).toEqual([{ status: httpStatus, reason: described.reason, cause: request.failure?.cause }])
      logFailure(request, err, described)
      expect(access).toHaveLength(1)
    } else expect(access).toEqual([])
  })

  it('when an answer was larger than the channel carries, then the client reads why (never 429 retry later) and the log says it', () => {
    const err = transport(status.RESOURCE_EXHAUSTED, 'Received message larger than max (300000000 vs 268435456)')
    const described = describeError(err)
    expect(described).toMatchObject({ status: 500, reason: 'ANSWER_TOO_LARGE', message: expect.stringMatching(/larger than the services carry.*page_size, include_limit, fields/) })
    const { lines, request } = requestFor(false)
    logFailure(request, err, described)
    expect(lines).toEqual([{ level: 'error', msg: expect.stringMatching(/answer larger than/), fields: { reason: 'ANSWER_TOO_LARGE', cause: expect.stringMatching(/Received message larger than max/) } }])
  })

  it('when the body could not be read, then the answer is a 400 in the error shape, not a 500', () => {
    expect(describeError(aborted())).toEqual({ status: 400, reason: 'MALFORMED_REQUEST', message: 'the request body could not be read', details: null, headers: {} })
  })
})
