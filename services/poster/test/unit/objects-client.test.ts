import { Metadata, status, type ServiceError } from '@grpc/grpc-js'
import { describe, expect, it } from 'vitest'
import { DETAILS_KEY, DomainError, REASON_KEY } from '@content/platform'
import { fromRemote } from '../../src/rpc/objects.client.js'

function remote (code: status, reason?: string, details?: object): ServiceError {
  const metadata = new Metadata()
  if (reason) metadata.set(REASON_KEY, reason)
  if (details) metadata.set(DETAILS_KEY, Buffer.from(JSON.stringify(details)))
  return Object.assign(new Error('remote'), { code, details: 'the message', metadata })
}

describe('fromRemote (errors of the objects service)', () => {
  it.each([
    [status.UNAUTHENTICATED, 'OBJECT_PROTECTED', 'UNAUTHENTICATED'],
    [status.PERMISSION_DENIED, 'PERMISSION_DENIED', 'PERMISSION_DENIED'],
    [status.NOT_FOUND, 'OBJECT_NOT_FOUND', 'NOT_FOUND'],
    [status.INVALID_ARGUMENT, 'TYPE_TAKES_NO_FILE', 'INVALID_ARGUMENT'],
  ])('when it answers status %i with reason %s, then the same domain error passes through', (code, reason, name) => {
    const err = fromRemote(remote(code, reason, { object_type: 'x' }))
    expect(err).toBeInstanceOf(DomainError)
    expect(err).toMatchObject({ code: name, reason, message: 'the message', details: { object_type: 'x' } })
  })

  it('when it cannot be reached or times out, then 503/504 reasons follow without its words', () => {
    expect(fromRemote(remote(status.UNAVAILABLE))).toMatchObject({ code: 'UNAVAILABLE', reason: 'SERVICE_UNAVAILABLE', message: 'the objects service did not answer' })
    expect(fromRemote(remote(status.DEADLINE_EXCEEDED))).toMatchObject({ code: 'DEADLINE_EXCEEDED', reason: 'BACKEND_TIMEOUT' })
  })

  it('when it fails inside, then the error is ours to log (INTERNAL), not a domain answer', () => {
    expect(fromRemote(remote(status.INTERNAL))).not.toBeInstanceOf(DomainError)
    expect(fromRemote(remote(status.UNKNOWN, 'SOMETHING'))).not.toBeInstanceOf(DomainError)
  })
})
