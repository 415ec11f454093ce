/** How the rendered resources point at each other: Services, config file, Secret, Ingress. */
import { beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import {
  CI_VALUES, containerOf, deploymentOf, envOf, envValue, helmSkipReason, ofKind, render, renderWith, skipTitle, valuesFile,
  type Doc, type RenderedDoc,
} from './support/chart.js'
import { readYaml } from './support/values.js'
import { must } from './support/must.js'

const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v)
const podsOf = (docs: RenderedDoc[], selector: Record<string, string>) =>
  ofKind(docs, 'Deployment').filter((d) => matches(selector, d.spec.template.metadata.labels))
const configMapOf = (docs: RenderedDoc[]) => must(ofKind(docs, 'ConfigMap')[0])
const checksumOf = (docs: RenderedDoc[]) =>
  deploymentOf(docs, 'gateway').spec.template.metadata.annotations['checksum/config'] as string

describe.skipIf(helmSkipReason)(`wiring policy${skipTitle}`, () => {
  describe.each(Object.keys(CI_VALUES))('ci/%s-values.yaml', (name) => {
    let docs: RenderedDoc[] = []
    beforeAll(() => { docs = render([must(CI_VALUES[name])]) })

    it('every Service selects exactly one Deployment and targets one of its container ports', () => {
      for (const service of ofKind(docs, 'Service')) {
        const targets = podsOf(docs, service.spec.selector)
        expect(targets.map((d) => d.metadata.name), service.metadata.name).toHaveLength(1)
        const ports = containerOf(must(targets[0])).ports as Doc[]
        for (const port of service.spec.ports as Doc[]) {
          const hit = ports.find((p) => p.name === port.targetPort || p.containerPort === port.targetPort)
          expect(hit, `${service.metadata.name} → ${port.targetPort}`).toBeDefined()
        }
      }
    })

    it('the gateway reads CONFIG_FILE from the mounted ConfigMap, and a config change rolls it', () => {
      const gateway = deploymentOf(docs, 'gateway')
      const c = containerOf(gateway)
      const file = must(envValue(c, 'CONFIG_FILE'))
      const mount = must((c.volumeMounts as Doc[]).find((m) => file.startsWith(`${m.mountPath}/`)))
      expect(mount, file).toBeDefined()
      const volume = must((gateway.spec.template.spec.volumes as Doc[]).find((v) => v.name === mount.name))
      const configMap = configMapOf(docs)
      expect(volume.configMap.name).toBe(configMap.metadata.name)
      expect(Object.keys(configMap.data)).toContain(file.slice(mount.mountPath.length + 1))
      expect(checksumOf(docs)).toMatch(/^[0-9a-f]{64}$/)
    })

    it('the config file carries gateway.config, leaving empty settings to the gateway defaults', () => {
      const config = gatewayConfig(docs)
      const given = ((readYaml(must(CI_VALUES[name])).gateway as Doc | undefined)?.config ?? {}) as Doc
      for (const [key, value] of Object.entries(given)) expect(config[key], key).toEqual(value)
      expect(config).not.toHaveProperty('writableTypes', [])
      if (given.writableTypes === undefined) expect(config).not.toHaveProperty('writableTypes')
    })

    it('every secretKeyRef names the Secret its value comes from, and the chart\'s own holds the key it names', () => {
      const values = readYaml(must(CI_VALUES[name])) as Record<string, Doc | undefined>
      const existing = values.secrets?.existingSecret as string | undefined
      // the Secrets named per value in this file
      const own = [values.secrets?.existingSecrets, values.postgres, values.mongodb, values.redis]
        .flatMap((v) => Object.values((v?.existingSecret ? { x: v.existingSecret } : v) ?? {}) as Doc[])
        .filter((r) => typeof r === 'object' && r?.name).map((r) => `${r.name}/${r.key}`)
      if (values.postgres?.cluster?.enabled) own.push('demo-content-api-pg-app/uri')
      const secret = ofKind(docs, 'Secret').find((x) => !x.metadata.annotations?.['helm.sh/hook'])
      const workloads = [...ofKind(docs, 'Deployment'), ...ofKind(docs, 'Job')]
      expect(workloads.length).toBeGreaterThan(3)
      for (const d of workloads) {
        for (const entry of envOf(containerOf(d)).values()) {
          const ref = entry.valueFrom?.secretKeyRef
          if (!ref) continue
          const where = `${d.metadata.name} ${entry.name}`
          if (own.includes(`${ref.name}/${ref.key}`)) continue
          if (existing) { expect(ref, where).toEqual(expect.objectContaining({ name: existing, key: entry.name })); continue }
          const hook = ofKind(docs, 'Secret').find((x) => x.metadata.name === ref.name)
          expect(hook, where).toBeDefined()
          if (!ref.optional) expect(Object.keys(must(hook).data), where).toContain(ref.key)
          // the migration Job reads its own hook Secret (the release's does not exist before install)
          expect(ref.name, where).toBe(d.kind === 'Job' && d.metadata.name.endsWith('-migrate') ? `${must(secret).metadata.name}-migrate` : must(secret).metadata.name)
        }
      }
    })
  })

  it('blacklist, filters and object-type endpoints from values reach the config file', () => {
    const docs = renderWith({
      gateway: { config: { blacklist: ['poster'], objectTypeEndpoints: ['documents'], pathFilters: { DELETE: ['relations'] } } },
    })
    expect(gatewayConfig(docs)).toEqual(expect.objectContaining({
      blacklist: ['poster'], objectTypeEndpoints: ['documents'], pathFilters: { DELETE: ['relations'] },
    }))
  })

  it('the checksum changes with the gateway config and only with it', () => {
    const base = checksumOf(render([must(CI_VALUES.minimal)]))
    expect(checksumOf(renderWith({ gateway: { config: { blacklist: ['me'] } } }))).not.toBe(base)
    expect(checksumOf(renderWith({ objects: { replicaCount: 3 } }))).toBe(base)
  })

  it('every service takes SERVICE_SECRET and JWT_SECRET from the Secret and the same issuer and algorithm: each verifies its callers itself', () => {
    const docs = render([must(CI_VALUES.minimal)])
    for (const component of ['gateway', 'auth', 'objects', 'poster']) {
      const env = envOf(containerOf(deploymentOf(docs, component)))
      for (const key of ['SERVICE_SECRET', 'JWT_SECRET']) expect(env.get(key)?.valueFrom?.secretKeyRef?.key, `${component} ${key}`).toBe(key)
      expect([envValue(containerOf(deploymentOf(docs, component)), 'JWT_ISSUER'), envValue(containerOf(deploymentOf(docs, component)), 'JWT_ALGORITHM')])
        .toEqual(['content-objects', 'HS256'])
    }
  })

  it('gateway.config.trustProxy takes the ingress controller\'s ranges, which the gateway believes X-Forwarded-For from', () => {
    expect(gatewayConfig(renderWith({ gateway: { config: { trustProxy: ['10.0.0.0/8', 'fd00::/8'] } } })).trustProxy).toEqual(['10.0.0.0/8', 'fd00::/8'])
    expect(gatewayConfig(render([must(CI_VALUES.minimal)])).trustProxy).toBe(false)
  })

  it('the chart Secret holds the given values and leaves ADMIN_PASSWORD out when unset', () => {
    const docs = render([must(CI_VALUES.minimal)])
    const values = readYaml(must(CI_VALUES.minimal)) as Record<string, Doc>
    const data = must(ofKind(docs, 'Secret')[0]).data as Record<string, string>
    const decoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]))
    expect(decoded).toEqual({
      JWT_SECRET: must(values.secrets).jwtSecret, SERVICE_SECRET: must(values.secrets).serviceSecret, MEDIA_SIGNING_KEY: must(values.secrets).mediaSigningKey,
      DATABASE_URL: must(values.postgres).url, REDIS_URL: must(values.redis).url,
    })
  })

  it('the poster keeps media beside the store (PostgreSQL, GridFS) or in its data directory next to SQLite, signing URLs with the Secret\'s key', () => {
    const onPostgres = containerOf(deploymentOf(render([must(CI_VALUES.minimal)]), 'poster'))
    expect(envValue(onPostgres, 'STORE')).toBe('postgres')
    expect(envValue(onPostgres, 'MEDIA_STORE')).toBe('postgres')
    expect(envOf(onPostgres).get('DATABASE_URL')?.valueFrom?.secretKeyRef?.key).toBe('DATABASE_URL')
    expect(envOf(onPostgres).get('MEDIA_SIGNING_KEY')?.valueFrom?.secretKeyRef?.key).toBe('MEDIA_SIGNING_KEY')
    const onMongo = containerOf(deploymentOf(render([must(CI_VALUES.mongodb)]), 'poster'))
    expect(envValue(onMongo, 'MEDIA_STORE')).toBe('gridfs')
    expect(envOf(onMongo).get('MONGODB_URL')?.valueFrom?.secretKeyRef?.key).toBe('MONGODB_URL')
    const local = deploymentOf(render([must(CI_VALUES.sqlite), valuesFile({ poster: { persistence: { existingClaim: 'media' } } })]), 'poster')
    expect(envValue(containerOf(local), 'MEDIA_STORE')).toBe('local')
    expect(envValue(containerOf(local), 'DATA_DIR')).toBe('/data')
    const data = must((local.spec.template.spec.volumes as Doc[]).find((v) => v.name === 'data'))
    expect(data.persistentVolumeClaim.claimName).toBe('media')
  })

  it('store=postgres: objects, auth and poster read the same DATABASE_URL and the pool settings of values', () => {
    const docs = renderWith({ postgres: { poolSize: 7, statementTimeoutMs: 12000, acquireTimeoutMs: 900 } })
    for (const component of ['objects', 'auth', 'poster']) {
      const c = containerOf(deploymentOf(docs, component))
      expect(envValue(c, 'STORE'), component).toBe('postgres')
      expect(envOf(c).get('DATABASE_URL')?.valueFrom?.secretKeyRef, component).toEqual({ name: 'demo-content-api', key: 'DATABASE_URL' })
      expect([envValue(c, 'PG_POOL_SIZE'), envValue(c, 'PG_STATEMENT_TIMEOUT_MS'), envValue(c, 'PG_ACQUIRE_TIMEOUT_MS')], component).toEqual(['7', '12000', '900'])
      expect(envOf(c).has('MONGODB_URL'), component).toBe(false)
    }
    expect(envOf(containerOf(deploymentOf(docs, 'gateway'))).has('DATABASE_URL')).toBe(false)
  })

  it('store=sqlite: Recreate rollouts, no database wiring, a Secret without the URLs it does not use', () => {
    const docs = render([must(CI_VALUES.sqlite)])
    for (const component of ['objects', 'auth', 'poster']) {
      const deployment = deploymentOf(docs, component)
      expect(deployment.spec.strategy).toEqual({ type: 'Recreate' })
      expect(envValue(containerOf(deployment), 'STORE')).toBe('sqlite')
      expect(envOf(containerOf(deployment)).has('MONGODB_URL')).toBe(false)
      expect(envOf(containerOf(deployment)).has('DATABASE_URL')).toBe(false)
    }
    expect(envOf(containerOf(deploymentOf(docs, 'auth'))).has('REDIS_URL')).toBe(false)
    expect(Object.keys(must(ofKind(docs, 'Secret')[0]).data).sort()).toEqual(['JWT_SECRET', 'MEDIA_SIGNING_KEY', 'SERVICE_SECRET'])
  })

  it('media limits of values reach the poster and the gateway as their settings', () => {
    const docs = render([must(CI_VALUES.full)])
    const values = readYaml(must(CI_VALUES.full)) as Record<string, Doc>
    const poster = containerOf(deploymentOf(docs, 'poster'))
    const media = must(values.poster).media as Record<string, number>
    expect([envValue(poster, 'UPLOAD_MAX_BYTES'), envValue(poster, 'UPLOAD_MAX_PIXELS'), envValue(poster, 'RENDER_CONCURRENCY'),
      envValue(poster, 'RENDER_QUEUE'), envValue(poster, 'THUMBNAIL_STORE_MAX_BYTES'), envValue(poster, 'THUMBNAIL_URL_TTL')])
      .toEqual([media.uploadMaxBytes, media.maxPixels, media.renderConcurrency, media.renderQueue, media.thumbnailStoreMaxBytes, media.thumbnailUrlTtl].map(String))
    const gateway = containerOf(deploymentOf(docs, 'gateway'))
    const gw = values.gateway as Doc
    expect(envValue(gateway, 'STREAM_TIMEOUT_MS')).toBe(String(gw.streamTimeoutMs))
    expect(envValue(gateway, 'THUMBNAIL_CACHE_BYTES')).toBe(String(gw.thumbnailCache.maxBytes))
    expect(envValue(gateway, 'THUMBNAIL_CACHE_TTL')).toBe(String(gw.thumbnailCache.ttlSeconds))
  })

  it('lifecycle settings of values reach the objects service; REVISIONS_KEEP only when set (unset keeps all, 0 none)', () => {
    const objects = (docs: ReturnType<typeof render>) => containerOf(deploymentOf(docs, 'objects'))
    const defaults = objects(render([must(CI_VALUES.minimal)]))
    expect(envValue(defaults, 'TRASH_RETENTION_DAYS')).toBe('30')
    expect(envOf(defaults).has('REVISIONS_KEEP')).toBe(false)
    const full = objects(render([must(CI_VALUES.full)]))
    expect([envValue(full, 'TRASH_RETENTION_DAYS'), envValue(full, 'REVISIONS_KEEP')]).toEqual(['14', '50'])
    const none = objects(renderWith({ objects: { revisionsKeep: 0, trashRetentionDays: 0.5 } }))
    expect([envValue(none, 'TRASH_RETENTION_DAYS'), envValue(none, 'REVISIONS_KEEP')]).toEqual(['0.5', '0'])
  })

  it('the Ingress routes to the gateway Service on a port it exposes', () => {
    const docs = render([must(CI_VALUES.full)])
    const ingress = must(ofKind(docs, 'Ingress')[0])
    const service = must(ofKind(docs, 'Service').find((s) => s.metadata.labels['app.kubernetes.io/component'] === 'gateway'))
    for (const rule of ingress.spec.rules as Doc[]) {
      for (const path of rule.http.paths as Doc[]) {
        expect(path.backend.service.name).toBe(service.metadata.name)
        expect(service.spec.ports.map((p: Doc) => p.name)).toContain(path.backend.service.port.name)
      }
    }
  })
})

function gatewayConfig (docs: RenderedDoc[]): Doc {
  const data = configMapOf(docs).data as Record<string, string>
  return parse(must(Object.values(data)[0]), { version: '1.1' }) as Doc
}
