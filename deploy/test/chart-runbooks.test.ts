/** Every alert links its runbook, and every runbook in deploy/runbooks/ exists, is listed and says what to do. */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CI_VALUES, helmSkipReason, ofKind, render, renderWith, skipTitle, type Doc } from './support/chart.js'
import { DEPLOY_DIR } from './support/helm.js'
import { must } from './support/must.js'

const RUNBOOKS = join(DEPLOY_DIR, 'runbooks')
const alertsOf = (docs: ReturnType<typeof render>): Doc[] => must(ofKind(docs, 'PrometheusRule')[0]).spec.groups.flatMap((g: Doc) => g.rules)

describe.skipIf(helmSkipReason)(`runbooks${skipTitle}`, () => {
  it('every alert has a runbook_url under metrics.prometheusRule.runbookBaseUrl naming its page', () => {
    for (const alert of alertsOf(render([must(CI_VALUES.full)]))) {
      expect(alert.annotations.runbook_url, alert.alert).toBe(`https://wiki.example.com/content-api/runbooks/${alert.alert}.md`)
    }
  })

  it('every alert\'s page exists with Meaning, Impact, Diagnosis and Mitigation, and no page is left without an alert', () => {
    const alerts = alertsOf(renderWith({ metrics: { prometheusRule: { enabled: true } } })).map((a) => a.alert as string)
    const pages = readdirSync(RUNBOOKS).filter((f) => f !== 'README.md').map((f) => f.replace(/\.md$/, ''))
    expect(pages.sort()).toEqual([...alerts].sort())
    for (const alert of alerts) {
      const text = readFileSync(join(RUNBOOKS, `${alert}.md`), 'utf8')
      expect(text.split('\n')[0], alert).toBe(`# ${alert}`)
      expect([...text.matchAll(/^## (.+)$/gm)].map((m) => m[1]), alert).toEqual(['Meaning', 'Impact', 'Diagnosis', 'Mitigation'])
    }
    const index = readFileSync(join(RUNBOOKS, 'README.md'), 'utf8')
    for (const alert of alerts) expect(index, alert).toContain(`| ${alert} |`)
  })

  it('the index states each alert\'s severity as the rule sets it', () => {
    const index = readFileSync(join(RUNBOOKS, 'README.md'), 'utf8')
    for (const alert of alertsOf(render([must(CI_VALUES.full)]))) {
      expect(index, alert.alert).toContain(`| ${alert.alert} | ${alert.labels.severity} |`)
    }
  })
})
