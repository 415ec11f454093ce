/**
 * store=postgres with a CloudNativePG Cluster the chart makes: the Cluster holds to the operator's CRD schema
 * (types, enums, required fields, and no field the CRD does not know), and its app Secret, whose `uri` names
 * the -rw Service, is every backend's DATABASE_URL.
 */
import { Cluster } from '@kubernetes-models/cloudnative-pg/postgresql.cnpg.io/v1/Cluster'
import { describe, expect, it } from 'vitest'
import {
  BACKENDS, CI_VALUES, NAMESPACE, containerOf, deploymentOf, envOf, helm, helmSkipReason, ofKind, parseRendered, render, skipTitle,
  templateRaw, valuesFile, type Doc,
} from './support/chart.js'
import { CHART_DIR } from './support/helm.js'
import { must } from './support/must.js'

const valid = (doc: Doc): boolean => {
  try { new Cluster(doc as ConstructorParameters<typeof Cluster>[0]).validate(); return true } catch { return false }
}

/**
 * Paths of `doc` the schema does not know. The CRD's schema, like the API server, accepts unknown fields (it
 * would prune them), so each leaf is replaced by a value of a kind no declared field takes (an object for a
 * scalar, a number for an object): a known field then fails validation, an unknown one does not.
 */
function unknownFields (doc: Doc): string[] {
  const found: string[] = []
  const visit = (holder: Doc, key: string | number, path: string) => {
    const value = holder[key]
    if (value !== null && typeof value === 'object' && Object.keys(value).length > 0) {
      for (const k of Array.isArray(value) ? value.keys() : Object.keys(value)) visit(value, k, `${path}/${k}`)
      return
    }
    holder[key] = value !== null && typeof value === 'object' ? 0.5 : { probe: [] }
    if (valid(doc)) found.push(path)
    holder[key] = value
  }
  for (const k of Object.keys(doc.spec)) visit(doc.spec, k, `/spec/${k}`)
  return found
}

const clusterOf = (files: string[]) => must(ofKind(render(files), 'Cluster')[0])

describe.skipIf(helmSkipReason)(`PostgreSQL and CloudNativePG${skipTitle}`, () => {
  it('ci/cnpg: a Cluster of 3 instances with one synchronous standby, valid against the CRD schema, every field known to it', () => {
    const cluster = clusterOf([must(CI_VALUES.cnpg)])
    expect(valid(cluster)).toBe(true)
    expect(unknownFields(structuredClone(cluster))).toEqual([])
    expect(cluster.metadata.name).toBe('demo-content-api-pg')
    expect(cluster.spec).toMatchObject({
      instances: 3,
      postgresql: { synchronous: { method: 'any', number: 1 }, parameters: { max_connections: '200' } },
      bootstrap: { initdb: { database: 'content', owner: 'content' } },
      storage: { size: '20Gi', storageClass: 'fast-ssd' },
      affinity: { enablePodAntiAffinity: true, topologyKey: 'kubernetes.io/hostname' },
    })
    expect(cluster.spec.backup.barmanObjectStore.destinationPath).toBe('s3://content-backups/content-api')
  })

  it('the checks can fail: a mistyped field, a bad enum and a field the CRD lacks are each caught', () => {
    const cluster = clusterOf([must(CI_VALUES.cnpg)])
    expect(valid({ ...cluster, spec: { ...cluster.spec, instances: 'three' } })).toBe(false)
    expect(valid({ ...cluster, spec: { ...cluster.spec, postgresql: { synchronous: { method: 'all', number: 1 } } } })).toBe(false)
    // a typo passed through postgres.cluster.backup
    const typo = clusterOf([must(CI_VALUES.cnpg), valuesFile({ postgres: { cluster: { backup: { retentionPolicy: '30d', barmanObjectStor: { destinationPath: 's3://x' } } } } })])
    expect(valid(typo)).toBe(true)
    expect(unknownFields(structuredClone(typo))).toEqual(['/spec/backup/barmanObjectStor/destinationPath'])
  })

  it('every backend and the migration Job read DATABASE_URL from the Cluster\'s app Secret (its uri names the -rw Service); the chart makes no Secret for it', () => {
    const docs = render([must(CI_VALUES.cnpg), valuesFile({ postgres: { url: 'postgresql://ignored@elsewhere/db' } })])
    const ref = { name: 'demo-content-api-pg-app', key: 'uri' }
    for (const backend of BACKENDS) expect(envOf(containerOf(deploymentOf(docs, backend))).get('DATABASE_URL')?.valueFrom?.secretKeyRef, backend).toEqual(ref)
    const job = must(ofKind(docs, 'Job').find((j) => j.metadata.name === 'demo-content-api-migrate'))
    expect(envOf(containerOf(job)).get('DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual(ref)
    expect(ofKind(docs, 'Secret')).toEqual([])
  })

  it('the Cluster does not exist before install: the Job runs before upgrades only, and the services create the schema on install', () => {
    const installed = render([must(CI_VALUES.cnpg)])
    const job = must(ofKind(installed, 'Job').find((j) => j.metadata.name === 'demo-content-api-migrate'))
    expect(job.metadata.annotations['helm.sh/hook']).toBe('pre-upgrade')
    for (const backend of BACKENDS) expect(envOf(containerOf(deploymentOf(installed, backend))).get('MIGRATE_ON_START')?.value, backend).toBe('true')
    const upgrade = helm(['template', 'demo', CHART_DIR, '--is-upgrade', '--namespace', NAMESPACE, '-f', must(CI_VALUES.cnpg)])
    expect(upgrade.status, upgrade.stderr).toBe(0)
    const upgraded = parseRendered(upgrade.stdout)
    for (const backend of BACKENDS) expect(envOf(containerOf(deploymentOf(upgraded, backend))).get('MIGRATE_ON_START')?.value, backend).toBe('false')
  })

  it('no Cluster unless asked, and none with another store (refused, with a message)', () => {
    expect(ofKind(render([must(CI_VALUES.minimal)]), 'Cluster')).toEqual([])
    const out = templateRaw([must(CI_VALUES.mongodb), valuesFile({ postgres: { cluster: { enabled: true } } })])
    expect(out.status).not.toBe(0)
    expect(out.stderr).toContain('postgres.cluster.enabled needs store=postgres (store is mongodb)')
  })

  it('store=postgres with the URL in an operator\'s Secret: no chart Secret entry, and no migration hook Secret', () => {
    const docs = render([must(CI_VALUES.minimal), valuesFile({ postgres: { url: '', existingSecret: { name: 'pg-credentials', key: 'url' } } })])
    for (const backend of BACKENDS) {
      expect(envOf(containerOf(deploymentOf(docs, backend))).get('DATABASE_URL')?.valueFrom?.secretKeyRef, backend).toEqual({ name: 'pg-credentials', key: 'url' })
    }
    const secrets = ofKind(docs, 'Secret')
    expect(secrets.map((s) => s.metadata.name)).toEqual(['demo-content-api'])
    expect(Object.keys(must(secrets[0]).data)).not.toContain('DATABASE_URL')
  })
})
