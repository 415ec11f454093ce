/** CHANGELOG.md has the chart's version, with what changed and what an upgrade from the one before needs. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { gt } from 'semver'
import { parse } from 'yaml'
import { CHART_DIR } from './support/helm.js'
import { must } from './support/must.js'

const chart = parse(readFileSync(join(CHART_DIR, 'Chart.yaml'), 'utf8')) as { version: string }
const changelog = readFileSync(join(CHART_DIR, 'CHANGELOG.md'), 'utf8')
const versions = [...changelog.matchAll(/^## (\d+\.\d+\.\d+)$/gm)].map((m) => must(m[1]))

describe('CHANGELOG.md', () => {
  it('starts with the chart\'s version, newest first', () => {
    expect(versions[0]).toBe(chart.version)
    expect(versions.length).toBeGreaterThan(1)
    for (let i = 1; i < versions.length; i++) expect(gt(must(versions[i - 1]), must(versions[i])), versions[i]).toBe(true)
  })

  it('every version but the first recorded one says how to upgrade from the one before', () => {
    for (const [i, version] of versions.slice(0, -1).entries()) {
      const section = changelog.slice(changelog.indexOf(`## ${version}\n`), changelog.indexOf(`## ${must(versions[i + 1])}\n`))
      expect(section, version).toContain(`**Upgrading from ${versions[i + 1]}**`)
    }
  })
})
