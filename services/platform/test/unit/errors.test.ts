import { Metadata, status } from '@grpc/grpc-js'
import { describe, expect, it } from 'vitest'
import { ERROR_CODES, type BackendErrorCode } from '@content/api-schema'
import { ANSWER_TOO_LARGE_MESSAGE, DETAILS_KEY, DomainError, HTTP_FROM_GRPC, REASON_KEY, toServiceError, toTransportError } from '../../src/errors.js'

describe('HTTP_FROM_GRPC', () => {
  it.each([
    [status.OK, 200], [status.CANCELLED, 499], [status.UNKNOWN, 500], [status.INVALID_ARGUMENT, 400],
    [status.DEADLINE_EXCEEDED, 504], [status.NOT_FOUND, 404], [status.ALREADY_EXISTS, 409],
    [status.PERMISSION_DENIED, 403], [status.RESOURCE_EXHAUSTED, 429], [status.FAILED_PRECONDITION, 400],
    [status.ABORTED, 409], [status.OUT_OF_RANGE, 400], [status.UNIMPLEMENTED, 501], [status.INTERNAL, 500],
    [status.UNAVAILABLE, 503], [status.DATA_LOSS, 500], [status.UNAUTHENTICATED, 401],
  ])('maps gRPC status %i to HTTP %i', (grpcStatus, http) => {
    expect(HTTP_FROM_GRPC[grpcStatus]).toBe(http)
  })

  it('covers every canonical status', () => {
    const numeric = Object.values(status).filter((v): v is number => typeof v === 'number')
    expect(Object.keys(HTTP_FROM_GRPC).map(Number).sort((a, b) => a - b)).toEqual(numeric.sort((a, b) => a - b))
  })
})

describe('toTransportError', () => {
  it('when a domain error is thrown locally, then its reason, message and details are kept', () => {
    const err = new DomainError('OBJECT_NOT_FOUND', 'object 9 not found', { id: 9 })
    expect(toTransportError(err)).toMatchObject({ httpStatus: 404, reason: 'OBJECT_NOT_FOUND', message: 'object 9 not found', details: { id: 9 }, expose: true })
  })

  it('when a domain error crossed gRPC, then the reason and details come back from the trailing metadata', () => {
    const wire = toServiceError(new DomainError('VALIDATION_FAILED', 'bad title', { field: 'title' }))
    const received = Object.assign(new Error(wire.details), wire)
    expect(toTransportError(received)).toMatchObject({ httpStatus: 400, reason: 'VALIDATION_FAILED', message: 'bad title', details: { field: 'title' }, expose: true })
  })

  it('when a status arrives without a reason (a dependency failed), then the message is not exposed', () => {
    const received = Object.assign(new Error('14 UNAVAILABLE: connect ECONNREFUSED 127.0.0.1:1'), { code: status.UNAVAILABLE, details: 'connect ECONNREFUSED 127.0.0.1:1', metadata: new Metadata() })
    expect(toTransportError(received)).toEqual({ grpcStatus: status.UNAVAILABLE, httpStatus: 503, reason: 'SERVICE_UNAVAILABLE', message: '', details: null, expose: false })
  })

  it.each([
    'Received message larger than max (5242885 vs 4194304)', 'Sent message larger than max (300000005 vs. 268435456)',
    'Received message that decompresses to a size larger than 268435456', 'Attempted to send message with a size larger than 268435456',
  ])('when RESOURCE_EXHAUSTED says a message passed the size limit (%s), then it is ANSWER_TOO_LARGE, a 500 that says so, never 429', (details) => {
    const received = Object.assign(new Error(`8 RESOURCE_EXHAUSTED: ${details}`), { code: status.RESOURCE_EXHAUSTED, details, metadata: new Metadata() })
    expect(toTransportError(received)).toEqual({
      grpcStatus: status.RESOURCE_EXHAUSTED, httpStatus: 500, reason: 'ANSWER_TOO_LARGE', message: ANSWER_TOO_LARGE_MESSAGE, details: null, expose: true,
    })
    expect(ANSWER_TOO_LARGE_MESSAGE).toMatch(/256 MiB.*page_size, include_limit, fields/)
  })

  it('when a backend rate-limits with its reason, then it stays a 429', () => {
    const wire = toServiceError(new DomainError('TOO_MANY_REQUESTS', 'slow down', { retry_after: 3 }))
    const received = Object.assign(new Error(wire.details), wire)
    expect(toTransportError(received)).toMatchObject({ grpcStatus: status.RESOURCE_EXHAUSTED, httpStatus: 429, reason: 'TOO_MANY_REQUESTS' })
  })

  it('when details are not JSON, then they are kept as text', () => {
    const metadata = new Metadata()
    metadata.set(REASON_KEY, 'X')
    metadata.set(DETAILS_KEY, Buffer.from('plain words'))
    const received = Object.assign(new Error('m'), { code: status.INVALID_ARGUMENT, details: 'm', metadata })
    expect(toTransportError(received).details).toBe('plain words')
  })

  it('when details quote input in any script or control characters, then they travel whole (gRPC refuses such text values)', () => {
    const details = { nickname: 'café-\u00e9\t\u0000-日本-😀', 'categories.0': 'unknown category: catégorie' }
    const wire = toServiceError(new DomainError('OBJECT_NOT_FOUND', 'object "café" not found', details))
    expect(toTransportError(Object.assign(new Error('m'), wire))).toMatchObject({ reason: 'OBJECT_NOT_FOUND', details })
  })

  it('when details cannot be serialised, then the reason and message still travel', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const wire = toServiceError(new DomainError('VALIDATION_FAILED', 'bad', cyclic))
    expect(toTransportError(Object.assign(new Error('bad'), wire))).toMatchObject({ httpStatus: 400, reason: 'VALIDATION_FAILED', message: 'bad', details: null })
  })

  it('when a backend of the previous release sends details under the text key, then they are read', () => {
    const metadata = new Metadata()
    metadata.set(REASON_KEY, 'X')
    metadata.set('content-error-details', '{"field":"title"}')
    const received = Object.assign(new Error('m'), { code: status.INVALID_ARGUMENT, details: 'm', metadata })
    expect(toTransportError(received).details).toEqual({ field: 'title' })
  })

  it.each([
    ['UPLOAD_TYPE_INVALID', 'INVALID_ARGUMENT', 415], ['UPLOAD_MAX_FILESIZE_EXCEEDED', 'INVALID_ARGUMENT', 413],
    ['RANGE_NOT_SATISFIABLE', 'OUT_OF_RANGE', 416],
  ] as const)('when the reason is %s (raised as %s), then its own HTTP status %i wins over the code\'s, locally and across gRPC', (reason, code, http) => {
    const err = new DomainError(reason, 'm')
    expect(err.code).toBe(code)
    expect(toTransportError(err).httpStatus).toBe(http)
    const wire = toServiceError(err)
    expect(toTransportError(Object.assign(new Error('m'), wire)).httpStatus).toBe(http)
  })

  it('when anything else is thrown, then it is an unexposed 500', () => {
    expect(toTransportError(new TypeError('secret internals'))).toMatchObject({ httpStatus: 500, reason: 'INTERNAL_ERROR', message: '', expose: false })
  })
})

describe('the catalogue of error codes (@content/api-schema ERROR_CODES)', () => {
  /** Codes whose HTTP status says more than their gRPC status's (decisions §12, §16; RFC 9110 §15.5.10, §15.5.17, §15.5.21). */
  const REFINED = new Set(['UPLOAD_TYPE_INVALID', 'UPLOAD_MAX_FILESIZE_EXCEEDED', 'RANGE_NOT_SATISFIABLE', 'IDEMPOTENCY_KEY_REUSED', 'PARENT_GONE'])

  it.each(ERROR_CODES.filter((e) => 'grpc' in e))('gives $code a gRPC status that maps back to its HTTP status $status, or a refinement of it', (e) => {
    const grpcStatus = status[(e as { grpc: keyof typeof status }).grpc]
    if (REFINED.has(e.code)) expect(HTTP_FROM_GRPC[grpcStatus]).not.toBe(e.status)
    else expect(HTTP_FROM_GRPC[grpcStatus]).toBe(e.status)
  })

  it('carries a raised code across the wire with the catalogue\'s status, whatever gRPC status it travels as', () => {
    for (const e of ERROR_CODES) {
      if (!('grpc' in e)) continue
      const wire = toServiceError(new DomainError(e.code as BackendErrorCode, 'm'))
      expect(toTransportError(Object.assign(new Error('m'), wire))).toMatchObject({ reason: e.code, httpStatus: e.status })
    }
  })
})
