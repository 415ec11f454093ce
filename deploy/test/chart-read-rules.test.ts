/**
 * The settings the gateway and the objects service must agree on (read rules, include budget), and the
 * gateway's live-stream limits: each reaches the services that read it, from one value.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  CI_VALUES, containerOf, deploymentOf, envOf, envValue, helmSkipReason, render, renderWith, skipTitle, templateRaw, valuesFile, type RenderedDoc,
} from './support/chart.js'
import { REPO_ROOT } from './support/helm.js'
import { must } from './support/must.js'

// The variable names come from the services' config sources, so one they add and the chart misses fails here.
const source = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8')
const PLATFORM = source('services/platform/src/config.ts')
const GATEWAY = source('services/gateway/src/config.ts')
const OBJECTS = source('services/objects/src/config.ts')
const namesOf = (text: string, pattern = '[A-Z][A-Z0-9_]*') => [...text.matchAll(new RegExp(`^ {2}(${pattern}):`, 'gm'))].map((m) => must(m[1]))
/** The variables of `export const <name> = { … }` in the platform's config. */
const platformBlock = (name: string) => {
  const start = PLATFORM.indexOf(`export const ${name} = {`)
  if (start < 0) throw new Error(`${name} not in services/platform/src/config.ts`)
  return namesOf(PLATFORM.slice(start, PLATFORM.indexOf('\n}\n', start)))
}
const SHARED = [...platformBlock('readRulesEnv'), ...platformBlock('includeBudgetEnv')]
const LIVE = namesOf(GATEWAY, 'LIVE_[A-Z0-9_]+')

const env = (docs: RenderedDoc[], component: string, names: string[]) => {
  const container = containerOf(deploymentOf(docs, component))
  return Object.fromEntries(names.map((n) => [n, envValue(container, n)]))
}

describe('the variables, as the services declare them', () => {
  it('the gateway and the objects service both read the read rules and the include budget', () => {
    for (const config of [GATEWAY, OBJECTS]) {
      expect(config).toContain('...readRulesEnv')
      expect(config).toContain('...includeBudgetEnv')
    }
    expect(SHARED).toContain('VISIBLE_STATUSES')
    expect(LIVE).toContain('LIVE_PING_MS')
  })
})

describe.skipIf(helmSkipReason)(`read rules, include budget and live streams${skipTitle}`, () => {
  it('by default both services get the services\' own defaults, the gateway the live defaults', () => {
    const docs = render([must(CI_VALUES.minimal)])
    const shared = { VISIBLE_STATUSES: 'on', PUBLICATION_WINDOW_FILTER: 'true', WRITER_GROUPS: 'administrator,editor', INCLUDE_BUDGET: '5000' }
    expect(env(docs, 'gateway', SHARED)).toEqual(shared)
    expect(env(docs, 'objects', SHARED)).toEqual(shared)
    expect(env(docs, 'gateway', LIVE)).toEqual({
      LIVE_MAX_STREAMS: '10000', LIVE_MAX_STREAMS_PER_CALLER: '50', LIVE_PING_MS: '15000',
      LIVE_MAX_BUFFER_BYTES: '1048576', LIVE_FLUSH_MS: '50', LIVE_SESSION_CHECK_MS: '15000', LIVE_RECENT_EVENTS: '10000',
    })
  })

  it('one set of values reaches the gateway and the objects service alike', () => {
    const docs = renderWith({
      readRules: { visibleStatuses: ['on', 'draft'], publicationWindowFilter: false, writerGroups: ['administrator', 'authors'] },
      includeBudget: 20000,
    })
    const expected = { VISIBLE_STATUSES: 'on,draft', PUBLICATION_WINDOW_FILTER: 'false', WRITER_GROUPS: 'administrator,authors', INCLUDE_BUDGET: '20000' }
    expect(env(docs, 'gateway', SHARED)).toEqual(expected)
    expect(env(docs, 'objects', SHARED)).toEqual(expected)
  })

  it('gateway.live sets the gateway\'s LIVE_* variables', () => {
    const docs = renderWith({
      gateway: { live: { maxStreams: 20000, maxStreamsPerCaller: 5, pingMs: 20000, maxBufferBytes: 4096, flushMs: 0, sessionCheckMs: 30000, recentEvents: 0 } },
    })
    expect(env(docs, 'gateway', LIVE)).toEqual({
      LIVE_MAX_STREAMS: '20000', LIVE_MAX_STREAMS_PER_CALLER: '5', LIVE_PING_MS: '20000',
      LIVE_MAX_BUFFER_BYTES: '4096', LIVE_FLUSH_MS: '0', LIVE_SESSION_CHECK_MS: '30000', LIVE_RECENT_EVENTS: '0',
    })
  })

  it('each variable goes only where a service reads it: the live limits to the gateway, nothing to auth or poster', () => {
    const docs = render([must(CI_VALUES.full)])
    const objects = envOf(containerOf(deploymentOf(docs, 'objects')))
    for (const name of LIVE) expect(objects.has(name), name).toBe(false)
    for (const component of ['auth', 'poster']) {
      const names = envOf(containerOf(deploymentOf(docs, component)))
      for (const name of [...SHARED, ...LIVE]) expect(names.has(name), `${component} ${name}`).toBe(false)
    }
  })

  it('ci/full-values.yaml: the read rules equal in both services, no variable given twice', () => {
    const docs = render([must(CI_VALUES.full)])
    expect(env(docs, 'objects', SHARED)).toEqual(env(docs, 'gateway', SHARED))
    expect(env(docs, 'gateway', SHARED).VISIBLE_STATUSES).toBe('on,draft')
    for (const component of ['gateway', 'objects']) {
      const names = (containerOf(deploymentOf(docs, component)).env as Array<{ name: string }>).map((e) => e.name)
      expect(names.filter((n, i) => names.indexOf(n) !== i), component).toEqual([])
    }
  })
})

describe.skipIf(helmSkipReason)(`helm refuses read rules the services would refuse at start${skipTitle}`, () => {
  const refused = (overlay: object) => {
    const out = templateRaw([must(CI_VALUES.minimal), valuesFile(overlay)])
    expect(out.status).not.toBe(0)
    return out.stderr
  }

  it('no visible status, or a bare `on` that YAML 1.1 read as a boolean', () => {
    expect(refused({ readRules: { visibleStatuses: [] } })).toContain('/readRules/visibleStatuses')
    expect(refused({ readRules: { visibleStatuses: [true] } })).toContain('/readRules/visibleStatuses/0')
  })

  it('an include budget of 0, a gateway allowing no stream', () => {
    expect(refused({ includeBudget: 0 })).toContain('/includeBudget')
    expect(refused({ gateway: { live: { maxStreams: 0 } } })).toContain('/gateway/live/maxStreams')
  })
})

describe.skipIf(helmSkipReason)(`a shared variable set on one side only${skipTitle}`, () => {
  it.each(['gateway', 'objects'])('%s.extraEnv may not set one: helm names the value to use instead', (component) => {
    const out = templateRaw([must(CI_VALUES.minimal), valuesFile({ [component]: { extraEnv: [{ name: 'VISIBLE_STATUSES', value: 'on,draft' }] } })])
    expect(out.status).not.toBe(0)
    expect(out.stderr).toContain(`${component}.extraEnv sets VISIBLE_STATUSES: set it with readRules or includeBudget`)
  })

  it('other extra variables pass', () => {
    expect(envValue(containerOf(deploymentOf(renderWith({ objects: { extraEnv: [{ name: 'UPLOAD_TOKEN_TTL', value: '60' }] } }), 'objects')), 'UPLOAD_TOKEN_TTL')).toBe('60')
  })
})
