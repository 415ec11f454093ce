import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CHART_DIR } from './support/helm.js'
import { at, defaultValues, describeErrors, mergeValues, readYaml, schema, schemaErrors, type Values } from './support/values.js'

const ciFiles = readdirSync(join(CHART_DIR, 'ci')).filter((f) => f.endsWith('.yaml'))

describe('values.schema.json accepts the shipped values', () => {
  it('values.yaml alone', () => {
    const errors = schemaErrors(defaultValues())
    expect(errors, describeErrors(errors)).toEqual([])
  })

  it('finds every CI overlay', () => {
    expect(ciFiles.sort()).toEqual(['cnpg-values.yaml', 'full-values.yaml', 'minimal-values.yaml', 'mongodb-values.yaml', 'sqlite-values.yaml'])
  })

  it.each(ciFiles)('ci/%s merged over values.yaml (as helm validates)', (file) => {
    const errors = schemaErrors(mergeValues(defaultValues(), readYaml(join(CHART_DIR, 'ci', file))))
    expect(errors, describeErrors(errors)).toEqual([])
  })
})

describe('values.schema.json rejects mistakes', () => {
  // [dotted path, value, the schema keyword that must fire]
  const cases: Array<[string, unknown, string]> = [
    ['gateway.replicaCont', 2, 'additionalProperties'],
    ['gateway.config.blacklists', ['poster'], 'additionalProperties'],
    ['gateway.resources.requests.cpus', '1', 'additionalProperties'],
    ['podSecurityContext.runAsNonroot', true, 'additionalProperties'],
    ['otel.enable', true, 'additionalProperties'],
    ['typoAtTheTop', 1, 'additionalProperties'],
    ['gateway.config.pathFilters.GET', ['relatoins'], 'enum'],
    ['gateway.config.pathFilters.PATCH', ['relations'], 'additionalProperties'],
    ['gateway.config.basePath', 'api', 'pattern'],
    ['gateway.replicaCount', 'two', 'type'],
    ['gateway.extraEnv', [{ name: 'not-a-name', value: 'x' }], 'pattern'],
    ['gateway.extraEnv', [{ name: 'N', value: 900 }], 'type'],
    ['gateway.env', { NAME: 'x' }, 'additionalProperties'],
    ['objects.image.tag', 'latest', 'not'],
    ['objects.image.digest', 'sha256:short', 'pattern'],
    ['poster.image.registy', 'x', 'additionalProperties'],
    ['gateway.autoscaling.enable', true, 'additionalProperties'],
    ['gateway.autoscaling.minReplicas', 0, 'minimum'],
    ['gateway.autoscaling.podsMetric', { name: 'rps' }, 'required'],
    ['auth.pdb.maxUnavailable', 'half', 'anyOf'],
    ['objects.probes.startup.failureThreshold', 0, 'minimum'],
    ['objects.sqliteCacheMb', 0, 'minimum'],
    ['objects.sqliteCacheMb', 1.5, 'type'],
    ['objects.trashRetentionDays', 0, 'minimum'],
    ['objects.revisionsKeep', -1, 'minimum'],
    ['objects.revisionsKeep', 2.5, 'type'],
    ['objects.podLabels', { 'app.kubernetes.io/instance': 'x' }, 'not'],
    ['clusterDomain', 'Cluster.Local', 'pattern'],
    ['process.grpcMaxConnectionAgeMs', 500, 'minimum'],
    ['metrics.port', 0, 'minimum'],
    ['metrics.serviceMonitor.interval', 'often', 'pattern'],
    ['metrics.prometheusRule.thresholds.http5xxRatio', 5, 'maximum'],
    ['networkPolicy.gatewayFrom', [], 'additionalProperties'],
    ['networkPolicy.egress.mongodb.ports', [{ port: 70000 }], 'anyOf'],
    ['networkPolicy.egress.dns.ports', [{ port: 53, protocol: 'ICMP' }], 'enum'],
    ['image.tag', 'latest', 'not'],
    ['store', 'postgresql', 'enum'],
    ['postgres.url', 'mysql://db/content', 'pattern'],
    ['postgres.poolSize', 0, 'minimum'],
    ['postgres.statementTimeoutMs', 50, 'minimum'],
    ['postgres.statementTimeoutMs', 7200000, 'maximum'],
    ['postgres.acquireTimeoutMs', 0, 'minimum'],
    ['postgres.existingSecret', 'db-secret', 'type'],
    ['postgres.existingSecret.name', 'Not_A_Name', 'pattern'],
    ['postgres.cluster.instances', 0, 'minimum'],
    ['postgres.cluster.synchronous.method', 'all', 'enum'],
    ['postgres.cluster.storage.size', '10 GB', 'pattern'],
    ['postgres.cluster.database', 'Content-DB', 'pattern'],
    ['postgres.cluster.parameters', { max_connections: 200 }, 'type'],
    ['secrets.existingSecrets.jwtSecret', { name: 'tokens', key: 'jwt', optional: true }, 'additionalProperties'],
    ['secrets.existingSecrets.jwtSecrets', { name: 'tokens', key: 'jwt' }, 'additionalProperties'],
    ['redis.existingSecret.key', 'not a key', 'pattern'],
    ['persistence.enabled', 'yes', 'type'],
    ['persistence.accessModes', ['ReadWriteSometimes'], 'enum'],
    ['persistence.accessModes', [], 'minItems'],
    ['persistence.size', '8 GiB', 'pattern'],
    ['objects.persistence.size', 'big', 'anyOf'],
    ['poster.persistence.storageClass', 'fast', 'additionalProperties'],
    ['migrations.job.enable', true, 'additionalProperties'],
    ['migrations.job.activeDeadlineSeconds', 5, 'minimum'],
    ['metrics.grafanaDashboard.labels', { grafana_dashboard: 1 }, 'type'],
    ['metrics.prometheusRule.runbookBaseUrl', 'https://wiki.example.com/runbooks/', 'pattern'],
    ['networkPolicy.egress.postgres.ports', [{ port: 70000 }], 'anyOf'],
    ['secrets.jwtSecret', 'too-short', 'anyOf'],
    ['secrets.mediaSigningKey', 'too-short', 'anyOf'],
    ['poster.media.renderConcurrency', 0, 'minimum'],
    ['poster.media.thumbnailUrlTtl', 30, 'minimum'],
    ['gateway.thumbnailCache.maxBytes', -1, 'minimum'],
    ['gateway.streamTimeoutMs', 500, 'minimum'],
    ['readRules.visibleStatuses', [], 'minItems'],
    ['readRules.visibleStatuses', ['on', 'published'], 'enum'],
    ['readRules.visibleStatuses', [true], 'enum'],
    ['readRules.visibleStatuses', 'on,draft', 'type'],
    ['readRules.publicationWindowFilter', 'no', 'type'],
    ['readRules.writerGroups', [], 'minItems'],
    ['readRules.writerGroups', ['editor,authors'], 'pattern'],
    ['readRules.writerGroup', ['editor'], 'additionalProperties'],
    ['includeBudget', 0, 'minimum'],
    ['includeBudget', 1250001, 'maximum'],
    ['gateway.live.maxStreams', 0, 'minimum'],
    ['gateway.live.maxStreamsPerCaller', 0, 'minimum'],
    ['gateway.live.pingMs', 50, 'minimum'],
    ['gateway.live.maxBufferBytes', 512, 'minimum'],
    ['gateway.live.sessionCheckMs', 60000, 'maximum'],
    ['gateway.live.recentEvents', -1, 'minimum'],
    ['gateway.live.maxStream', 10, 'additionalProperties'],
    ['jwt.algorithm', 'none', 'enum'],
    ['mongodb.url', 'http://mongo:27017', 'pattern'],
    ['redis.url', 'mongodb://x', 'pattern'],
    ['process.shutdownTimeoutMs', 50, 'minimum'],
    ['objects.port', 70000, 'maximum'],
    ['ingress.hosts', [{ host: 'x', paths: [{ path: '/', pathType: 'Sometimes' }] }], 'enum'],
  ]

  it.each(cases)('%s = %j fails with %s', (path, value, keyword) => {
    const errors = schemaErrors(mergeValues(defaultValues(), at(path, value)))
    expect(errors.map((e) => e.keyword)).toContain(keyword)
  })

  it('names the offending key of a typo', () => {
    const errors = schemaErrors(mergeValues(defaultValues(), at('gateway.config.blacklists', [])))
    expect(errors).toContainEqual(expect.objectContaining({
      instancePath: '/gateway/config',
      params: { additionalProperty: 'blacklists' },
    }))
  })
})

describe('values.schema.json is strict where the chart owns the shape', () => {
  // Objects whose keys are free-form by nature: a parent chart's globals, and Kubernetes objects passed
  // through as they are (affinity, tolerations, volumes, NetworkPolicy peers…), all through one definition.
  const OPEN = new Set(['/properties/global', '/definitions/k8sObject'])
  const isOpenPassthrough = (path: string) => OPEN.has(path)

  function walk (node: unknown, path: string, found: string[]): void {
    if (typeof node !== 'object' || node === null) return
    const obj = node as Record<string, unknown>
    if (obj.type === 'object' && obj.properties !== undefined && obj.additionalProperties !== false) found.push(path)
    if (obj.type === 'object' && obj.properties === undefined && obj.additionalProperties === undefined &&
      !isOpenPassthrough(path)) found.push(path)
    for (const [key, child] of Object.entries(obj)) walk(child, `${path}/${key}`, found)
  }

  it('every object with properties has additionalProperties: false; no other object is silently open', () => {
    const offenders: string[] = []
    walk(schema, '', offenders)
    expect(offenders).toEqual([])
  })

  it('declares draft-07', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#')
  })
})

describe('values.yaml documents every value with ## @param', () => {
  const text = readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8')
  const documented = new Set([...text.matchAll(/^\s*## @param (\S+)/gm)].map((m) => m[1]))

  function leaves (value: unknown, prefix: string, out: string[]): void {
    const isMap = typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0
    if (!isMap) { out.push(prefix); return }
    for (const [k, v] of Object.entries(value as Values)) leaves(v, prefix ? `${prefix}.${k}` : k, out)
  }

  it('each leaf, or one of its parents, has a @param line', () => {
    const paths: string[] = []
    leaves(defaultValues(), '', paths)
    const undocumented = paths.filter((p) => {
      const parts = p.split('.')
      return !parts.some((_, i) => documented.has(parts.slice(0, i + 1).join('.')))
    })
    expect(undocumented).toEqual([])
  })
})
