/** `helm lint --strict`: the whole chart, with values.yaml alone and with each ci/*-values.yaml. */
import { describe, expect, it } from 'vitest'
import { CI_VALUES, helmSkipReason, lint, skipTitle, valuesFile } from './support/chart.js'
import { must } from './support/must.js'

describe.skipIf(helmSkipReason)(`helm lint --strict${skipTitle}`, () => {
  it('passes on the chart with values.yaml alone (lint tolerates the missing secrets that template refuses)', () => {
    const out = lint()
    expect(out.status, out.stdout + out.stderr).toBe(0)
    expect(out.stdout).toContain('1 chart(s) linted, 0 chart(s) failed')
  })

  it.each(Object.keys(CI_VALUES))('passes with ci/%s-values.yaml', (name) => {
    const out = lint([must(CI_VALUES[name])])
    expect(out.status, out.stdout + out.stderr).toBe(0)
    expect(out.stdout).not.toMatch(/\[(WARNING|ERROR)\]/)
  })

  // [what is wrong, overlay, what the message must say]
  const mistakes: Array<[string, object, string]> = [
    ['an unknown top-level key', { replicas: 3 }, "additional properties 'replicas' not allowed"],
    ['an unknown nested key', { gateway: { autoscaling: { enable: true } } }, "at '/gateway/autoscaling': additional properties 'enable' not allowed"],
    ['image.tag latest', { image: { tag: 'latest' } }, "at '/image/tag'"],
    ['a component tag latest', { poster: { image: { tag: 'latest' } } }, "at '/poster/image/tag'"],
    ['a digest that is not sha256', { objects: { image: { digest: 'md5:abc' } } }, "at '/objects/image/digest'"],
    ['podLabels overriding a selector label', { gateway: { podLabels: { 'app.kubernetes.io/component': 'x' } } }, "invalid propertyName 'app.kubernetes.io/component'"],
  ]

  it.each(mistakes)('fails on %s, naming where', (_what, overlay, message) => {
    const out = lint([must(CI_VALUES.minimal), valuesFile(overlay)])
    expect(out.status).not.toBe(0)
    expect(out.stdout + out.stderr).toContain(message)
  })
})
