/**
 * Schema migrations in the chart: with store=postgres or mongodb the admin tool's `migrate` runs in a hook Job
 * before install and upgrade, with the services' store settings, and the services start with
 * MIGRATE_ON_START=false; with store=sqlite each service migrates its own file as it opens it.
 */
import { Job } from 'kubernetes-models/batch/v1/Job'
import { describe, expect, it } from 'vitest'
import {
  BACKENDS, CI_VALUES, NAMESPACE, containerOf, deploymentOf, envOf, helmSkipReason, ofKind, render, renderWith, skipTitle, valuesFile,
  type Doc, type RenderedDoc,
} from './support/chart.js'
import { allows, type Endpoint } from './support/network-policy.js'
import { must } from './support/must.js'

const MIGRATE = 'demo-content-api-migrate'
const migrationOf = (docs: RenderedDoc[], kind: string): Doc | undefined => ofKind(docs, kind).find((d) => d.metadata.name === MIGRATE)
const migrateOnStart = (docs: RenderedDoc[]) => BACKENDS.map((b) => envOf(containerOf(deploymentOf(docs, b))).get('MIGRATE_ON_START')?.value)
/** The store part of a container's environment: what the Job must share with the services. */
const STORE_ENV = ['DATA_DIR', 'STORE', 'MEDIA_STORE', 'DATABASE_URL', 'PG_POOL_SIZE', 'PG_STATEMENT_TIMEOUT_MS', 'PG_ACQUIRE_TIMEOUT_MS', 'MONGODB_URL', 'MONGODB_DB']
const storeEnv = (container: Doc) => Object.fromEntries([...envOf(container)].filter(([n]) => STORE_ENV.includes(n))
  .map(([n, e]) => [n, e.value ?? `${e.valueFrom.secretKeyRef.key} of a Secret`]))

describe.skipIf(helmSkipReason)(`schema migrations${skipTitle}`, () => {
  it('store=postgres: a pre-install,pre-upgrade hook Job runs the admin tool\'s migrate, as the services run theirs', () => {
    const docs = render([must(CI_VALUES.minimal)])
    const job = must(migrationOf(docs, 'Job'))
    new Job(job as ConstructorParameters<typeof Job>[0]).validate()
    expect(job.metadata.annotations).toEqual({
      'helm.sh/hook': 'pre-install,pre-upgrade', 'helm.sh/hook-weight': '0', 'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    })
    expect(job.spec).toMatchObject({ backoffLimit: 1, activeDeadlineSeconds: 3600 })
    const c = containerOf(job)
    expect(c.image).toBe('registry.example.com/content/content-api-admin:0.1.0')
    expect(c.command).toEqual(['node', 'services/admin/dist/main.js', 'migrate'])
    const objects = deploymentOf(docs, 'objects')
    expect(job.spec.template.spec.securityContext).toEqual(objects.spec.template.spec.securityContext)
    expect(c.securityContext).toEqual(containerOf(objects).securityContext)
    expect(job.spec.template.spec.restartPolicy).toBe('Never')
    expect(job.spec.template.spec.automountServiceAccountToken).toBe(false)
  })

  it.each(['minimal', 'mongodb', 'full', 'cnpg'])('ci/%s: the Job has every backend\'s store settings (its own statement timeout), and the backends start without migrating', (name) => {
    const docs = render([must(CI_VALUES[name])])
    const job = containerOf(must(migrationOf(docs, 'Job') ?? ofKind(docs, 'Job').find((j) => j.metadata.name.endsWith('-migrate'))))
    const { PG_STATEMENT_TIMEOUT_MS: timeout, ...settings } = storeEnv(job)
    for (const backend of BACKENDS) {
      const { PG_STATEMENT_TIMEOUT_MS: _, ...theirs } = storeEnv(containerOf(deploymentOf(docs, backend)))
      expect(settings, backend).toEqual(theirs)
    }
    if (settings.STORE === 'postgres') expect(timeout).toBe(name === 'full' ? '1800000' : '3600000')
    expect((containerOf(must(ofKind(docs, 'Job').find((j) => j.metadata.name.endsWith('-migrate')))).env as Doc[]).map((e) => e.name))
      .toEqual([...new Set((job.env as Doc[]).map((e) => e.name))])
    expect(Object.keys(storeEnv(job))).toContain('STORE')
    expect(new Set(migrateOnStart(docs))).toEqual(new Set([name === 'cnpg' ? 'true' : 'false'])) // ci/cnpg: see chart-postgres
  })

  it('the URL given as a value reaches the Job through a hook Secret made ahead of it (the release\'s own Secret does not exist before install)', () => {
    const docs = render([must(CI_VALUES.minimal)])
    const secret = must(migrationOf(docs, 'Secret'))
    expect(secret.metadata.annotations).toMatchObject({ 'helm.sh/hook': 'pre-install,pre-upgrade', 'helm.sh/hook-weight': '-10' })
    expect(Object.keys(secret.data)).toEqual(['DATABASE_URL'])
    const release = must(ofKind(docs, 'Secret').find((s) => s.metadata.name === 'demo-content-api'))
    expect(secret.data.DATABASE_URL).toBe(release.data.DATABASE_URL)
    expect(envOf(containerOf(must(migrationOf(docs, 'Job')))).get('DATABASE_URL')?.valueFrom.secretKeyRef).toEqual({ name: MIGRATE, key: 'DATABASE_URL' })
    // ServiceAccount and NetworkPolicy too, before the Job
    for (const kind of ['ServiceAccount', 'NetworkPolicy']) expect(must(migrationOf(docs, kind)).metadata.annotations['helm.sh/hook-weight'], kind).toBe('-10')
    expect(must(migrationOf(docs, 'Job')).spec.template.spec.serviceAccountName).toBe(MIGRATE)
  })

  it('a URL from an existing Secret is read from there; an existing ServiceAccount is used as it is', () => {
    const docs = renderWith({ postgres: { url: '', existingSecret: { name: 'pg', key: 'uri' } }, serviceAccount: { create: false, name: 'content-sa' } })
    expect(migrationOf(docs, 'Secret')).toBeUndefined()
    expect(migrationOf(docs, 'ServiceAccount')).toBeUndefined()
    const job = must(migrationOf(docs, 'Job'))
    expect(envOf(containerOf(job)).get('DATABASE_URL')?.valueFrom.secretKeyRef).toEqual({ name: 'pg', key: 'uri' })
    expect(job.spec.template.spec.serviceAccountName).toBe('content-sa')
  })

  it('the Job\'s pod reaches DNS and the database, nothing else, and nothing reaches it', () => {
    const docs = render([must(CI_VALUES.minimal)])
    const policies = ofKind(docs, 'NetworkPolicy')
    const job: Endpoint = { namespace: NAMESPACE, labels: must(migrationOf(docs, 'Job')).spec.template.metadata.labels }
    const objects: Endpoint = { namespace: NAMESPACE, labels: deploymentOf(docs, 'objects').spec.template.metadata.labels, ports: { grpc: 50051 } }
    const db: Endpoint = { namespace: '', ip: '10.0.0.5' }
    expect(allows(policies, NAMESPACE, job, db, { port: 5432 })).toBe(true)
    expect(allows(policies, NAMESPACE, job, { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } }, { port: 53, protocol: 'UDP' })).toBe(true)
    expect(allows(policies, NAMESPACE, job, db, { port: 443 })).toBe(false)
    expect(allows(policies, NAMESPACE, job, objects, { port: 50051 })).toBe(false)
    expect(allows(policies, NAMESPACE, objects, job, { port: 8080 })).toBe(false)
  })

  it('store=mongodb: MONGODB_URL and MONGODB_DB, GridFS for the media', () => {
    const env = envOf(containerOf(must(migrationOf(render([must(CI_VALUES.mongodb)]), 'Job'))))
    expect(env.get('STORE')?.value).toBe('mongodb')
    expect(env.get('MEDIA_STORE')?.value).toBe('gridfs')
    expect(env.get('MONGODB_DB')?.value).toBe('content')
    expect(env.get('MONGODB_URL')?.valueFrom.secretKeyRef).toEqual({ name: MIGRATE, key: 'MONGODB_URL' })
  })

  it('store=sqlite: no Job (each file lives on its own pod\'s claim); each service migrates its file as it opens it', () => {
    const docs = render([must(CI_VALUES.sqlite)])
    expect(ofKind(docs, 'Job')).toEqual([])
    expect(migrateOnStart(docs)).toEqual(['true', 'true', 'true'])
  })

  it('migrations.job.enabled=false: no Job, the services migrate as they start', () => {
    const docs = renderWith({ migrations: { job: { enabled: false } } })
    expect(migrationOf(docs, 'Job')).toBeUndefined()
    expect(migrationOf(docs, 'Secret')).toBeUndefined()
    expect(migrateOnStart(docs)).toEqual(['true', 'true', 'true'])
  })

  it('its limits, statement timeout and extra environment come from migrations.job (ci/full)', () => {
    const job = must(ofKind(render([must(CI_VALUES.full)]), 'Job').find((j) => j.metadata.name === 'content-migrate'))
    expect(job.spec.activeDeadlineSeconds).toBe(7200)
    const env = containerOf(job).env as Doc[]
    expect(env.at(-1)).toEqual({ name: 'NODE_OPTIONS', value: '--max-old-space-size=768' })
    expect(envOf(containerOf(job)).get('PG_STATEMENT_TIMEOUT_MS')?.value).toBe('1800000')
    expect(containerOf(job).image).toBe('registry.example.com/content/content-api-admin:1.2.3')
  })

  it('helm template with only the Job changed still renders (a values file for a dry run of migrations)', () => {
    expect(() => render([must(CI_VALUES.minimal), valuesFile({ migrations: { job: { backoffLimit: 0, activeDeadlineSeconds: 60 } } })])).not.toThrow()
  })
})
