/** Values helm must refuse, each with a message that says what to fix. */
import { describe, expect, it } from 'vitest'
import { CI_VALUES, helmSkipReason, skipTitle, templateRaw, valuesFile } from './support/chart.js'
import { must } from './support/must.js'

const refuse = (overlay: object) => {
  const out = templateRaw([must(CI_VALUES.minimal), valuesFile(overlay)])
  expect(out.status, out.stdout.slice(0, 200)).not.toBe(0)
  return out.stderr
}

describe.skipIf(helmSkipReason)(`helm template refuses bad values${skipTitle}`, () => {
  it('values.yaml alone, listing every missing secret at once', () => {
    const out = templateRaw()
    expect(out.status).not.toBe(0)
    for (const missing of ['secrets.jwtSecret is required', 'secrets.serviceSecret is required', 'secrets.mediaSigningKey is required', 'postgres.url is required', 'redis.url is required']) {
      expect(out.stderr).toContain(missing)
    }
    // each names where else the value may come from
    expect(out.stderr).toContain('postgres.url is required when store=postgres (or postgres.cluster.enabled) unless a Secret holds DATABASE_URL: postgres.existingSecret.name, or secrets.existingSecret')
    expect(out.stderr).not.toContain('mongodb.url')
  })

  it('an unknown key, through the schema', () => {
    expect(refuse({ gateway: { replicaCont: 2 } })).toContain("at '/gateway': additional properties 'replicaCont' not allowed")
  })

  it('image.tag latest, through the schema', () => {
    expect(refuse({ image: { tag: 'latest' } })).toContain("at '/image/tag'")
  })

  it('store=sqlite with two replicas of a backend, naming each', () => {
    const stderr = refuse({ store: 'sqlite', objects: { replicaCount: 2 }, auth: { replicaCount: 1 } })
    expect(stderr).toContain('objects.replicaCount must be 0 or 1 with store=sqlite')
    // the poster's local media directory has one owner too
    expect(stderr).toContain('poster.replicaCount must be 0 or 1 with store=sqlite')
    expect(stderr).not.toContain('auth.replicaCount must be')
  })

  it('store=sqlite with autoscaling on a backend (the gateway may scale)', () => {
    const stderr = refuse({
      store: 'sqlite', redis: { enabled: false },
      objects: { replicaCount: 1, autoscaling: { enabled: true } }, auth: { replicaCount: 1 }, poster: { replicaCount: 1 },
      gateway: { autoscaling: { enabled: true } },
    })
    expect(stderr).toContain('objects.autoscaling.enabled must be false with store=sqlite')
    expect(stderr).not.toContain('gateway.autoscaling')
  })

  it('autoscaling with minReplicas above maxReplicas', () => {
    expect(refuse({ gateway: { autoscaling: { enabled: true, minReplicas: 5, maxReplicas: 3 } } }))
      .toContain('gateway.autoscaling.minReplicas must not exceed maxReplicas')
  })

  it('more than one auth pod without Redis (revocations must be shared), by replicas or by autoscaling', () => {
    expect(refuse({ redis: { enabled: false } })).toContain('more than one auth pod')
    expect(refuse({ redis: { enabled: false }, auth: { replicaCount: 1, autoscaling: { enabled: true, minReplicas: 1 } } }))
      .toContain('more than one auth pod')
  })

  it('a metrics port that collides with a serving port', () => {
    expect(refuse({ metrics: { port: 50052 } })).toContain('metrics.port must differ from auth.port')
  })

  it('a grace period that does not cover preStop + shutdown timeout', () => {
    expect(refuse({ process: { shutdownTimeoutMs: 20000, terminationGracePeriodSeconds: 20 } })).toContain('terminationGracePeriodSeconds must exceed')
  })

  it('a JWT secret or media signing key shorter than 32 bytes', () => {
    expect(refuse({ secrets: { jwtSecret: 'short' } })).toContain("at '/secrets/jwtSecret'")
    expect(refuse({ secrets: { mediaSigningKey: 'short' } })).toContain("at '/secrets/mediaSigningKey'")
  })
})
