import { describe, expect, it } from 'vitest'
import { DomainError } from '../../src/errors.js'
import { failureError, failureKind } from '../../src/postgres/failures.js'

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code })

describe('failureKind', () => {
  it.each([
    [coded('ECONNREFUSED'), 'unreachable'],
    [coded('ECONNRESET'), 'unreachable'],
    [coded('57P01', 'terminating connection due to administrator command'), 'unreachable'],
    [coded('57P03', 'the database system is starting up'), 'unreachable'],
    [coded('08006'), 'unreachable'],
    [coded('53300', 'sorry, too many clients already'), 'unreachable'],
    [coded('25006', 'cannot execute INSERT in a read-only transaction'), 'unreachable'],
    [new Error('Connection terminated unexpectedly'), 'unreachable'],
    [new Error('Connection terminated due to connection timeout'), 'unreachable'],
    [new Error('Client has encountered a connection error and is not queryable'), 'unreachable'],
    [coded('57014', 'canceling statement due to statement timeout'), 'timeout'],
    [new Error('Query read timeout'), 'timeout'],
    [coded('23505', 'duplicate key value violates unique constraint'), 'other'],
    [coded('40001'), 'other'],
    ['not an error', 'other'],
  ])('%s → %s', (err, kind) => {
    expect(failureKind(err)).toBe(kind)
  })

  it('tells an acquire timeout of a full pool (exhausted) from one still connecting (unreachable)', () => {
    const err = new Error('timeout exceeded when trying to connect')
    expect(failureKind(err, true)).toBe('exhausted')
    expect(failureKind(err, false)).toBe('unreachable')
  })
})

describe('failureError', () => {
  const context = { poolSize: 7, acquireTimeoutMs: 250, statementTimeoutMs: 900 }
  it('answers 503 for an unreachable database or an exhausted pool, 504 for a timeout, nothing for the rest', () => {
    const unreachable = failureError('unreachable', context)
    expect(unreachable).toBeInstanceOf(DomainError)
    expect(unreachable).toMatchObject({ reason: 'SERVICE_UNAVAILABLE', code: 'UNAVAILABLE', details: { retry_after: 1 } })
    expect(failureError('exhausted', context)?.message).toContain('all 7 connections stayed in use for 250 ms')
    expect(failureError('timeout', context)).toMatchObject({ reason: 'BACKEND_TIMEOUT', code: 'DEADLINE_EXCEEDED' })
    expect(failureError('timeout', context)?.message).toContain('900 ms')
    expect(failureError('other', context)).toBeNull()
  })

  it('a failure while committing says the write may have been applied', () => {
    expect(failureError('unreachable', { ...context, committing: true })?.details).toEqual({ retry_after: 1, maybe_applied: true })
    expect(failureError('timeout', { ...context, committing: true })?.details).toEqual({ maybe_applied: true })
  })
})
