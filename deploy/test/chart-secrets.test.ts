/**
 * Where every secret comes from: a Secret named for that value (an operator's), else secrets.existingSecret,
 * else the value, which the chart puts into its own Secret. The chart's Secret holds exactly the values no
 * other Secret provides, and only then exists.
 */
import { describe, expect, it } from 'vitest'
import {
  BACKENDS, CI_VALUES, COMPONENTS, containerOf, deploymentOf, envOf, helmSkipReason, ofKind, render, renderWith, skipTitle, templateRaw,
  valuesFile, type Doc, type RenderedDoc,
} from './support/chart.js'
import { must } from './support/must.js'

/** variable → "secret/key" for every secretKeyRef of the release's Deployments and Jobs. */
function sources (docs: RenderedDoc[]): Record<string, Set<string>> {
  const out: Record<string, Set<string>> = {}
  for (const w of [...ofKind(docs, 'Deployment'), ...ofKind(docs, 'Job')]) {
    for (const [name, e] of envOf(containerOf(w))) {
      const ref = e.valueFrom?.secretKeyRef
      if (!ref) continue
      out[name] = new Set([...(out[name] ?? []), `${ref.name}/${ref.key}`])
    }
  }
  return out
}
const chartSecret = (docs: RenderedDoc[]): Doc | undefined => ofKind(docs, 'Secret').find((s) => s.metadata.name === 'demo-content-api')
const decoded = (secret: Doc) => Object.fromEntries(Object.entries(secret.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]))

describe.skipIf(helmSkipReason)(`secrets${skipTitle}`, () => {
  it('ci/cnpg: every value from the Secret and key named for it, the database from the Cluster\'s app Secret; the chart makes no Secret', () => {
    const docs = render([must(CI_VALUES.cnpg)])
    const single = (keys: string[]) => Object.fromEntries(Object.entries(sources(docs)).filter(([k]) => keys.includes(k)).map(([k, v]) => [k, [...v]]))
    expect(single(['JWT_SECRET', 'SERVICE_SECRET', 'MEDIA_SIGNING_KEY', 'ADMIN_PASSWORD', 'REDIS_URL', 'DATABASE_URL'])).toEqual({
      JWT_SECRET: ['content-tokens/jwt'], SERVICE_SECRET: ['content-tokens/service'], MEDIA_SIGNING_KEY: ['content-media/signing-key'],
      ADMIN_PASSWORD: ['content-admin/password'], REDIS_URL: ['redis-content/url'], DATABASE_URL: ['demo-content-api-pg-app/uri'],
    })
    expect(ofKind(docs, 'Secret')).toEqual([])
    // a Secret named for one value must hold it: never optional there, not even auth's ADMIN_PASSWORD
    const auth = envOf(containerOf(deploymentOf(docs, 'auth')))
    expect(auth.get('ADMIN_PASSWORD')?.valueFrom.secretKeyRef.optional).toBeUndefined()
    for (const c of COMPONENTS) expect(deploymentOf(docs, c).spec.template.metadata.annotations?.['checksum/secret'], c).toBeUndefined()
  })

  it('a value with its own Secret wins over secrets.existingSecret, which wins over the value; the chart\'s Secret keeps only the rest', () => {
    const docs = renderWith({
      secrets: { existingSecrets: { jwtSecret: { name: 'jwt-from-vault', key: '' } } },
      redis: { existingSecret: { name: 'redis-operator', key: 'connection' } },
    })
    const s = sources(docs)
    expect([...must(s.JWT_SECRET)]).toEqual(['jwt-from-vault/JWT_SECRET']) // key empty: the variable's name
    expect([...must(s.REDIS_URL)]).toEqual(['redis-operator/connection'])
    expect([...must(s.SERVICE_SECRET)]).toEqual(['demo-content-api/SERVICE_SECRET'])
    expect(Object.keys(decoded(must(chartSecret(docs)))).sort()).toEqual(['DATABASE_URL', 'MEDIA_SIGNING_KEY', 'SERVICE_SECRET'])

    const mixed = render([must(CI_VALUES.full), valuesFile({ secrets: { existingSecrets: { mediaSigningKey: { name: 'media', key: 'key' } } } })])
    const m = sources(mixed)
    expect([...must(m.MEDIA_SIGNING_KEY)]).toEqual(['media/key'])
    expect([...must(m.JWT_SECRET)]).toEqual(['content-api-secrets/JWT_SECRET'])
    expect([...must(m.DATABASE_URL)]).toEqual(['content-api-secrets/DATABASE_URL'])
    expect(ofKind(mixed, 'Secret')).toEqual([])
  })

  it('a value from a Secret of its own is no longer required as a value, and the message says where else it may come from', () => {
    const secretsOnly = { secrets: { jwtSecret: '', existingSecrets: { jwtSecret: { name: 'tokens', key: 'jwt' } } } }
    expect(templateRaw([must(CI_VALUES.minimal), valuesFile(secretsOnly)]).status).toBe(0)
    const out = templateRaw([must(CI_VALUES.minimal), valuesFile({ secrets: { serviceSecret: '' }, redis: { url: '' } })])
    expect(out.status).not.toBe(0)
    expect(out.stderr).toContain('secrets.serviceSecret is required (at least 32 bytes) unless a Secret holds SERVICE_SECRET: secrets.existingSecrets.serviceSecret.name, or secrets.existingSecret')
    expect(out.stderr).toContain('redis.url is required when redis.enabled unless a Secret holds REDIS_URL: redis.existingSecret.name, or secrets.existingSecret')
  })

  it('every pod rolls when the chart\'s Secret changes (checksum/secret), as for a changed database URL', () => {
    const checksum = (docs: RenderedDoc[], c: string) => deploymentOf(docs, c).spec.template.metadata.annotations['checksum/secret'] as string
    const before = render([must(CI_VALUES.minimal)])
    const after = renderWith({ postgres: { url: 'postgresql://content:other@db:5432/content' } })
    for (const c of COMPONENTS) {
      expect(checksum(before, c), c).toMatch(/^[0-9a-f]{64}$/)
      expect(checksum(after, c), c).not.toBe(checksum(before, c))
    }
    expect(decoded(must(chartSecret(after))).DATABASE_URL).toBe('postgresql://content:other@db:5432/content')
  })

  it('store=mongodb takes MONGODB_URL from mongodb.existingSecret when named', () => {
    const docs = render([must(CI_VALUES.mongodb), valuesFile({ mongodb: { url: '', existingSecret: { name: 'mongo-operator', key: 'connectionString.standard' } } })])
    for (const backend of BACKENDS) {
      expect(envOf(containerOf(deploymentOf(docs, backend))).get('MONGODB_URL')?.valueFrom.secretKeyRef, backend)
        .toEqual({ name: 'mongo-operator', key: 'connectionString.standard' })
    }
    expect(Object.keys(decoded(must(chartSecret(docs))))).not.toContain('MONGODB_URL')
  })
})
