import { describe, expect, it } from 'vitest'
import { MIGRATE_COMMAND, SchemaVersionError, checkMigrationList, describeReport, pendingMigrations, reportOf, type Migration } from '../../src/migrations/plan.js'

const step = (version: number): Migration<null> => ({ version, name: `step ${version}`, up: () => {} })
const THREE = [step(1), step(2), step(3)]
const refusal = (run: () => unknown): string => {
  try {
    run()
  } catch (err) {
    expect(err).toBeInstanceOf(SchemaVersionError)
    return (err as Error).message
  }
  throw new Error('expected a refusal')
}

describe('pendingMigrations', () => {
  it.each([
    [0, false, [1, 2, 3]],
    [0, true, [1, 2, 3]],
    [1, false, [2, 3]],
    [3, false, []],
  ])('migrate: a store at version %i (earlier release %s) gets %j', (version, earlierRelease, expected) => {
    expect(pendingMigrations('auth', 'x', { version, earlierRelease }, THREE, 'migrate').map((m) => m.version)).toEqual(expected)
  })

  it('check: a store at the latest version passes', () => {
    expect(pendingMigrations('auth', 'x', { version: 3, earlierRelease: false }, THREE, 'check')).toEqual([])
  })

  it.each([
    [{ version: 1, earlierRelease: false }, 'has schema version 1; this release needs version 3'],
    [{ version: 0, earlierRelease: false }, 'has no schema yet'],
    [{ version: 0, earlierRelease: true }, 'written by a release from before schema versions'],
  ])('check: a store behind (%j) is refused with what to run', (state, says) => {
    const message = refusal(() => pendingMigrations('objects', '/data/objects.sqlite', state, THREE, 'check'))
    expect(message).toContain(says)
    expect(message).toContain('/data/objects.sqlite')
    expect(message).toContain(MIGRATE_COMMAND)
    expect(message).toContain('MIGRATE_ON_START=true')
  })

  it.each(['migrate', 'check'] as const)('%s: a store newer than the release knows is refused', (mode) => {
    const message = refusal(() => pendingMigrations('poster', 'media', { version: 4, earlierRelease: false }, THREE, mode))
    expect(message).toContain('schema version 4, newer than this release knows (3)')
  })
})

describe('checkMigrationList', () => {
  it('accepts 1, 2, 3 and refuses a gap, a repeat or a list out of order', () => {
    expect(() => checkMigrationList('s', THREE)).not.toThrow()
    expect(() => checkMigrationList('s', [step(1), step(3)])).toThrow(/expected version 2/)
    expect(() => checkMigrationList('s', [step(1), step(1)])).toThrow(/expected version 2/)
    expect(() => checkMigrationList('s', [step(2), step(1)])).toThrow(/expected version 1/)
  })
})

describe('describeReport', () => {
  it('says what was applied, and from where', () => {
    expect(describeReport(reportOf('auth', 'auth.sqlite', { version: 0, earlierRelease: true }, [step(1)])))
      .toBe('auth (auth.sqlite): from an earlier release without versions to version 1: 1 step 1')
    expect(describeReport(reportOf('auth', 'auth.sqlite', { version: 1, earlierRelease: false }, [step(2), step(3)])))
      .toBe('auth (auth.sqlite): from version 1 to version 3: 2 step 2, 3 step 3')
    expect(describeReport(reportOf('auth', 'auth.sqlite', { version: 3, earlierRelease: false }, [])))
      .toBe('auth (auth.sqlite): schema version 3, up to date')
  })
})
