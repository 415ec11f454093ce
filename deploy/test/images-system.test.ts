/**
 * The images, not the checkout: deploy/docker/Dockerfile built with buildah (deploy/docker/build-images.sh,
 * on the node:…-bookworm-slim equivalent of deploy/docker/node-base-image.sh), read layer by layer, then
 * the four services started from them with podman as the chart starts them — the chart's environment,
 * uid and read-only root filesystem, its volumes (emptyDirs, and the claims of store=sqlite, empty as new) as fresh directories and its gateway config file — on this machine's
 * loopback, and driven through a smoke run. Addresses and ports are the one departure from the chart:
 * every container shares the host's network, so each listens on 127.0.0.1 on a port of its own.
 *
 * The smoke run goes twice, once per store: SQLite (ci/sqlite-values.yaml), and this machine's PostgreSQL
 * (ci/minimal-values.yaml with a database made for the run and dropped after), where the chart's migration
 * Job (a pre-install hook) runs first in the admin image, the services start with MIGRATE_ON_START=false,
 * and the rows the run wrote are then read from the database itself.
 *
 * The build is the slow part (about 5 minutes cold on 2 cores); buildah's layer cache makes a second run
 * take seconds, so .ci/run builds first and this test then finds every layer cached.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deflateSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CI_VALUES, componentOf, containerOf, deploymentOf, type Doc, helmSkipReason, ofKind, render, valuesFile } from './support/chart.js'
import { CHART_DIR, REPO_ROOT } from './support/helm.js'
import { buildImages, imageName, imageSkipReason, inspectImage, podman, RUN_LIMITS, SERVICES, type Service, withImageRoot } from './support/images.js'
import { must } from './support/must.js'
// below the ephemeral range: a port picked inside it could be taken by a connection of a container started before the one that is to bind it
import { freePort } from '../../scripts/launcher/ports.mjs'
// the source, not @content/platform/testing: CI runs this test before anything is built
import { createTestDatabase, onServer, type TestDatabase } from '../../services/platform/src/testing/test-database.js'

const skipReason = imageSkipReason() ?? helmSkipReason
const TAG = 'system-test'
const ADMIN_PASSWORD = 'image-test-admin-password'
const FIXTURES_CONFIG_MAP = 'content-fixtures'
/** Titles of what the smoke run writes, looked up again in the store. */
const TITLES = { image: 'Harbour', written: 'Written from a test of the images', fixture: 'Loaded by the bootstrap Job' }

/**
 * The stores the services run against, each from its CI values file: the embedded one (SQLite files on the
 * claims, empty as new), and PostgreSQL, the chart's default, given by URL (a database of the test's own on
 * this machine's server, which 127.0.0.1 reaches from the host's network).
 */
const STORES = [{ store: 'sqlite', values: 'sqlite' }, { store: 'postgres', values: 'minimal' }] as const

/** ci/minimal-values.yaml pointed at `url`; one auth pod, so its refresh tokens stay in PostgreSQL and no Redis is needed. */
const postgresValues = (url: string) => ({ postgres: { url }, redis: { enabled: false }, auth: { replicaCount: 1 } })

/**
 * Largest image allowed, bytes. Measured here: the base (Debian minbase, node 24 with its headers, npm) is
 * 320 MB, and a service's /app 65–80 MB (node_modules: OpenTelemetry, gRPC, the MongoDB driver; sharp's
 * libvips in poster), so 385–401 MB an image. 500 MB leaves 100 MB for dependency updates and still fails
 * on any of the mistakes that matter: the build stage's compilers (`python3 make g++`: 459 MB here), or the
 * whole workspace's node_modules with dev dependencies (about 1.2 GB). What a smaller slip brings in (a
 * stray folder, another service) is caught by the content checks below, not by the size.
 */
const SIZE_BUDGET = 500 * 1000 * 1000

/** Packages the lockfile installs only as dev dependencies (typescript, vitest, turbo, helm's zip, …). */
const DEV_ONLY = (() => {
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> }
  const names = new Map<string, boolean>()
  for (const [path, entry] of Object.entries(lock.packages)) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(path)?.[1]
    if (name) names.set(name, (names.get(name) ?? true) && entry.dev === true)
  }
  return [...names].filter(([, dev]) => dev).map(([name]) => name)
})()

describe.skipIf(skipReason)(`the images of deploy/docker/Dockerfile${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let buildReport = ''
  beforeAll(() => {
    const started = Date.now()
    buildReport = buildImages(TAG)
    console.log(`images built in ${Math.round((Date.now() - started) / 1000)} s:\n${buildReport}`)
  }, 45 * 60_000)
  afterAll(() => { if (scratch) rmSync(scratch, { recursive: true, force: true }) })

  it('each image reports its size and stays within the budget', () => {
    const sizes = SERVICES.map((s) => [s, inspectImage(imageName(s, TAG)).size] as const)
    console.log(`image sizes (budget ${SIZE_BUDGET / 1e6} MB): ${sizes.map(([s, n]) => `${s} ${(n / 1e6).toFixed(0)} MB`).join(', ')}`)
    for (const [service, size] of sizes) expect(size, service).toBeLessThan(SIZE_BUDGET)
  })

  it('carries the OCI labels: source, version (the chart appVersion), revision (the commit built)', () => {
    const appVersion = must(/^appVersion: "(.+)"$/m.exec(readFileSync(join(CHART_DIR, 'Chart.yaml'), 'utf8'))?.[1])
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim()
    for (const service of SERVICES) {
      const { labels, user } = inspectImage(imageName(service, TAG))
      expect(labels, service).toMatchObject({
        'org.opencontainers.image.title': `content-api-${service}`,
        'org.opencontainers.image.version': appVersion,
        'org.opencontainers.image.revision': head,
      })
      expect(labels['org.opencontainers.image.source'], service).toBeTruthy()
      expect(user, service).toBe('node')
    }
  })

  /** The service workspaces each image holds: its own and the platform; the admin tool's `migrate` also runs every store's migrations. */
  const WORKSPACES_IN_IMAGE: Record<Service, string[]> = {
    gateway: ['gateway', 'platform'], auth: ['auth', 'platform'], objects: ['objects', 'platform'], poster: ['platform', 'poster'],
    admin: ['admin', 'auth', 'objects', 'platform', 'poster'],
  }

  it('holds in /app only what its service runs: no sources, tests, declarations, dev dependencies, other services', () => {
    for (const service of SERVICES) {
      withImageRoot(imageName(service, TAG), (root) => {
        const app = join(root, 'app')
        const files = walk(app)
        const ours = files.filter((f) => !f.includes('/node_modules/'))
        expect(ours.filter((f) => /\.(ts|tsx|map)$/.test(f) || /\/(src|test)\//.test(f)), service).toEqual([])
        expect(readdirSync(join(app, 'services')), service).toEqual(WORKSPACES_IN_IMAGE[service])
        expect(existsSync(join(app, `services/${service}/dist/main.js`)), service).toBe(true)
        const modules = ['node_modules', ...readdirSync(join(app, 'services')).map((s) => `services/${s}/node_modules`)]
        const devInImage = DEV_ONLY.filter((name) => modules.some((dir) => existsSync(join(app, dir, name))))
        expect(devInImage, `${service}: packages only dev dependencies bring`).toEqual([])
        expect(existsSync(join(app, 'package-lock.json')), service).toBe(false)
        // the addon's C/C++ sources are dropped, its compiled module kept
        if (existsSync(join(app, 'node_modules/better-sqlite3'))) {
          expect(existsSync(join(app, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node')), service).toBe(true)
          expect(existsSync(join(app, 'node_modules/better-sqlite3/deps')), service).toBe(false)
        }
        for (const tool of ['usr/bin/gcc', 'usr/bin/g++', 'usr/bin/make', 'usr/bin/python3']) {
          expect(existsSync(join(root, tool)), `${service}: /${tool}`).toBe(false)
        }
      })
    }
    // where each service's workspaces come from: every service uses the API schema (the platform's error
    // catalogue is in it), and only its own service's code
    withImageRoot(imageName('auth', TAG), (root) => {
      expect(existsSync(join(root, 'app/schema/dist/index.js'))).toBe(true)
      expect(existsSync(join(root, 'app/services/gateway'))).toBe(false)
    })
  })

  it('keeps this machine\'s registry, CA bundle and resolver out of every layer, the config and the history', () => {
    const registry = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim()
    const machineCerts = extraCertificates()
    const resolver = existsSync('/etc/resolv.conf') ? readFileSync('/etc/resolv.conf', 'utf8').match(/^nameserver\s+\S+/gm) ?? [] : []
    for (const service of SERVICES) {
      const image = inspectImage(imageName(service, TAG))
      const meta = [...image.env, ...image.history, ...Object.values(image.labels)].join('\n')
      for (const needle of [registry, 'npm_config_registry', 'NODE_EXTRA_CA_CERTS', '/etc/ssl/certs']) {
        expect(meta.includes(needle), `${service}: ${needle} in config or history`).toBe(false)
      }
      withImageRoot(imageName(service, TAG), (root) => {
        for (const npmrc of ['root/.npmrc', 'home/node/.npmrc', 'usr/local/etc/npmrc', 'app/.npmrc', 'etc/npmrc']) {
          expect(existsSync(join(root, npmrc)), `${service}: /${npmrc}`).toBe(false)
        }
        expect(existsSync(join(root, 'etc/resolv.conf')) && resolver.some((line) => readFileSync(join(root, 'etc/resolv.conf'), 'utf8').includes(line)), `${service}: resolv.conf`).toBe(false)
        if (machineCerts.length > 0) {
          const found = execFileSync('sh', ['-c', 'grep -rlF -f "$1" "$2" || true', 'sh', writeLines(machineCerts), root], { encoding: 'utf8' }).trim()
          expect(found, `${service}: files holding a certificate of this machine's CA bundle`).toBe('')
        }
      })
    }
  })

  for (const { store, values } of STORES) describe(`the four services started from their images, with the chart's environment for ci/${values}-values.yaml (store=${store})`, () => {
    let system: RunningImages
    let database: TestDatabase | undefined
    let started = 0
    beforeAll(async () => {
      started = Date.now()
      if (store === 'postgres') database = await createTestDatabase('images')
      system = await startImages(must(CI_VALUES[values]), database ? postgresValues(database.url) : {})
      console.log(`store=${store}: migrated and started in ${Math.round((Date.now() - started) / 1000)} s`)
    }, 240_000)
    afterAll(async () => {
      await system?.remove()
      await database?.drop()
      console.log(`store=${store}: ${Math.round((Date.now() - started) / 1000)} s in all, from its set-up to its clean-up`)
    })

    it('serve a smoke run: login, a read by nickname, an upload and its thumbnail, a write, a webhook delivery', async () => {
      const { base } = system
      const login = await json(base, 'POST', '/auth', { username: 'admin', password: ADMIN_PASSWORD })
      expect(login.status, JSON.stringify(login.body)).toBe(200)
      const token = login.body.data.access_token as string
      const auth = { authorization: `Bearer ${token}` }

      const publication = await json(base, 'GET', '/objects/publication')
      expect(publication.status).toBe(200)
      expect(publication.body.data.object.id).toBe(1)

      // the webhook, registered with the admin tool's own image, the password on stdin as deploy/README.md shows
      const hook = system.admin(`webhooks add ${system.receiver.url}/hook --events '*' --json`)
      expect(hook.status, hook.stderr).toBe(0)
      expect(JSON.parse(must(hook.stdout.trim().split('\n').at(-1)))).toMatchObject({ secret: expect.stringMatching(/^whsec_/) })

      const upload = await fetch(`${base}/files/image/harbour.png`, { method: 'POST', headers: { ...auth, 'content-type': 'image/png' }, body: png(96, 64) })
      const uploaded = await upload.json() as { data: { upload_token: string } }
      expect(upload.status, JSON.stringify(uploaded)).toBe(200)
      const image = await json(base, 'POST', '/objects', { data: { object_type: 'image', title: TITLES.image, parents: [1], upload_token: uploaded.data.upload_token } }, auth)
      expect(image.status, JSON.stringify(image.body)).toBe(201)
      const poster = await json(base, 'GET', `/poster/${image.body.data.object.id}?width=48`)
      expect(poster.status, JSON.stringify(poster.body)).toBe(200)
      const thumbnail = await fetch(poster.body.data.uri as string)
      expect(thumbnail.status).toBe(200)
      expect(thumbnail.headers.get('content-type')).toMatch(/^image\//)
      expect((await thumbnail.arrayBuffer()).byteLength).toBeGreaterThan(100)

      const doc = await json(base, 'POST', '/objects', { data: { object_type: 'document', title: TITLES.written, parents: [1] } }, auth)
      expect(doc.status, JSON.stringify(doc.body)).toBe(201)
      const docId = doc.body.data.object.id as number
      const readBack = await json(base, 'GET', `/objects/${docId}`)
      expect(readBack.status).toBe(200)
      expect(readBack.body.data.object.title).toBe(TITLES.written)
      const delivery = await system.receiver.waitFor((d) => {
        const event = JSON.parse(d.body) as { type?: string, data?: { object_id?: number } }
        return event.type === 'object.created' && event.data?.object_id === docId
      }, 20_000)
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,/)
    })

    it('run the chart\'s bootstrap Job in the admin image: the administrator logs in, the fixtures file loads', async () => {
      const fixtures = { objects: [{ ref: 'from-job', object_type: 'section', title: TITLES.fixture, parents: ['@publication'] }] }
      const run = system.bootstrap({ 'fixtures.json': JSON.stringify(fixtures) })
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0)
      expect(run.stdout).toContain('the administrator admin logs in')
      const ids = JSON.parse(must(run.stdout.trim().split('\n').at(-1))) as Record<string, number>
      const section = await json(system.base, 'GET', `/objects/${ids['from-job']}`)
      expect(section.status).toBe(200)
      expect(section.body.data.object.title).toBe(TITLES.fixture)
    })

    if (store === 'postgres') {
      it('kept it all in the PostgreSQL database: the objects, the upload\'s bytes and thumbnail, the login\'s refresh token', async () => {
        const counts = await onServer(async (client) => {
          const count = async (sql: string, params: unknown[] = []) => Number((await client.query(`SELECT count(*) AS n FROM ${sql}`, params)).rows[0].n)
          return {
            image: await count('objects.objects WHERE title = $1 AND file IS NOT NULL', [TITLES.image]),
            written: await count('objects.objects WHERE title = $1', [TITLES.written]),
            fixture: await count('objects.objects WHERE title = $1', [TITLES.fixture]),
            originals: await count('poster.originals'),
            thumbnails: await count('poster.thumbnails'),
            refreshTokens: await count('auth.refresh_tokens'),
          }
        }, must(database).url)
        expect(counts).toMatchObject({ image: 1, written: 1, fixture: 1, originals: 1 })
        expect(counts.thumbnails).toBeGreaterThan(0)
        expect(counts.refreshTokens).toBeGreaterThan(0)
      })
    }

    it('answer /metrics on every service', async () => {
      for (const service of ['gateway', 'auth', 'objects', 'poster'] as const) {
        const res = await fetch(`http://127.0.0.1:${system.ports[service].metrics}/metrics`)
        expect(res.status, service).toBe(200)
        expect(await res.text(), service).toContain('process_resident_memory_bytes')
      }
    })

    it('drain and exit 0 on SIGTERM, within the shutdown timeout', async () => {
      for (const service of ['gateway', 'poster', 'objects', 'auth'] as const) {
        const started = Date.now()
        const stopped = await system.terminate(service)
        expect(stopped.code, `${service}:\n${stopped.logs}`).toBe(0)
        expect(stopped.logs, service).toContain('"msg":"stopped"')
        expect(Date.now() - started, service).toBeLessThan(10_000)
      }
    })
  })
})

// ---------------------------------------------------------------------------------------------------

function walk (dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry)
    if (lstatSync(path).isDirectory()) out.push(...walk(path))
    else out.push(path)
  }
  return out
}

let scratch: string | undefined
const scratchDir = () => (scratch ??= mkdtempSync(join(tmpdir(), 'image-test-')))
function writeLines (lines: string[]): string {
  const file = join(scratchDir(), `patterns-${lines.length}`)
  writeFileSync(file, `${lines.join('\n')}\n`)
  return file
}

/**
 * One line of each certificate this machine trusts beyond the public CAs (the CA bundle the build mounted,
 * less Debian's ca-certificates and Node's own roots): a layer holding any of them holds this machine's
 * configuration. The public ones are left out because the image's node binary embeds them itself.
 */
function extraCertificates (): string[] {
  // the bundle build-images.sh mounts, as it picks it (npm's cafile aside)
  const bundle = process.env.NODE_EXTRA_CA_CERTS || '/etc/ssl/certs/ca-certificates.crt'
  if (!existsSync(bundle)) return []
  const pemsOf = (text: string) => text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []
  const publicLines = new Set(execFileSync(process.execPath, ['-p', 'require("tls").rootCertificates.join("\\n")'], { encoding: 'utf8', env: { PATH: process.env.PATH } }).split('\n'))
  const distribution = '/usr/share/ca-certificates'
  if (existsSync(distribution)) {
    for (const file of walk(distribution).filter((f) => f.endsWith('.crt'))) for (const line of readFileSync(file, 'utf8').split('\n')) publicLines.add(line.trim())
  }
  return pemsOf(readFileSync(bundle, 'utf8'))
    .filter((pem) => !pem.split('\n').every((line) => publicLines.has(line.trim())))
    .map((pem) => must(pem.split('\n').filter((line) => line.length === 64).at(-2)))
}

/** A small opaque gradient PNG, no dependency needed. */
function png (width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const crc = Buffer.alloc(4)
    let c = ~0
    for (const b of body) {
      c ^= b
      for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1))
    }
    crc.writeUInt32BE(~c >>> 0)
    return Buffer.concat([length, body, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.writeUInt8(8, 8) // bit depth
  header.writeUInt8(2, 9) // RGB
  const raw = Buffer.alloc((width * 3 + 1) * height)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) raw.set([x * 2, y * 3, 128], y * (width * 3 + 1) + 1 + x * 3)
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))])
}

// biome-ignore lint/suspicious/noExplicitAny: whatever JSON the system answered; each test asserts the shape it reads
async function json (base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number, body: any }> {
  const res = await fetch(base + path, { method, headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined }
}

interface Delivery { headers: IncomingHttpHeaders, body: string }
interface Receiver { url: string, waitFor: (match: (d: Delivery) => boolean, timeoutMs: number) => Promise<Delivery>, close: () => Promise<void> }

/** A webhook receiver on loopback that answers 204 and keeps what it got. */
async function receiver (): Promise<Receiver> {
  const got: Delivery[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => { body += String(c) })
    req.on('end', () => { got.push({ headers: req.headers, body }); res.writeHead(204).end() })
  })
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    async waitFor (match, timeoutMs) {
      const until = Date.now() + timeoutMs
      for (;;) {
        const hit = got.find(match)
        if (hit) return hit
        if (Date.now() > until) throw new Error(`no matching delivery within ${timeoutMs} ms; got ${got.length}: ${got.map((d) => d.body.slice(0, 200)).join(' | ')}`)
        await new Promise((r) => setTimeout(r, 200))
      }
    },
    close: () => new Promise((res) => server.close(() => res())),
  }
}

type Component = Exclude<Service, 'admin'>
interface Ports { port: number, metrics: number }
interface RunningImages {
  base: string
  ports: Record<Component, Ports>
  receiver: Receiver
  /** `content-admin <command>` in the admin image, the administrator's password on its first stdin line */
  admin: (command: string) => { status: number | null, stdout: string, stderr: string }
  /** the chart's bootstrap Job, as the kubelet would run it, with `fixtures` as its ConfigMap */
  bootstrap: (fixtures: Record<string, string>) => { status: number | null, stdout: string, stderr: string }
  terminate: (service: Component) => Promise<{ code: number, logs: string }>
  remove: () => Promise<void>
}

/** The chart rendered for a store's values, webhooks allowed to this machine's receiver, the bootstrap Job on. */
function chartDocs (ciValues: string, storeValues: object) {
  return render([ciValues, valuesFile(storeValues), valuesFile({
    secrets: { adminPassword: ADMIN_PASSWORD },
    objects: { webhooks: { allowPrivate: true } },
    admin: { bootstrap: { enabled: true, fixtures: { configMap: FIXTURES_CONFIG_MAP, key: 'fixtures.json' } } },
  })], 'content-api')
}

/** Every Secret the chart renders, by name: key → value. */
function secretsOf (docs: ReturnType<typeof render>): Record<string, Record<string, string>> {
  const secrets: Record<string, Record<string, string>> = {}
  for (const doc of ofKind(docs, 'Secret')) {
    const data: Record<string, string> = { ...doc.stringData }
    for (const [k, v] of Object.entries(doc.data ?? {})) data[k] = Buffer.from(String(v), 'base64').toString('utf8')
    secrets[doc.metadata.name] = data
  }
  return secrets
}

/** A container's environment as the kubelet resolves it: literal values, the chart's Secrets, the pod's fields. */
function resolvedEnv (container: Doc, secrets: Record<string, Record<string, string>>, pod: string): Record<string, string> {
  const env: Record<string, string> = {}
  for (const entry of container.env as Doc[]) {
    if (entry.value !== undefined) env[entry.name] = String(entry.value).replace(/\$\((\w+)\)/g, (_, name: string) => env[name] ?? '')
    else if (entry.valueFrom?.secretKeyRef) {
      const { name, key, optional } = entry.valueFrom.secretKeyRef
      const value = secrets[name]?.[key]
      if (value !== undefined) env[entry.name] = value
      else if (!optional) throw new Error(`${entry.name}: no key ${key} in the Secret ${name}`)
    } else if (entry.valueFrom?.fieldRef?.fieldPath === 'metadata.name') env[entry.name] = pod
    else if (entry.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace') env[entry.name] = 'content'
    else throw new Error(`${entry.name}: a source this test does not resolve`)
  }
  return env
}

/** The image built here for the one the chart names (`…/content-api-<service>:<tag>`). */
function imageOf (container: Doc): string {
  const service = SERVICES.find((s) => String(container.image).includes(`content-api-${s}:`))
  if (!service) throw new Error(`${container.name}: the chart's image ${container.image} is none of ${SERVICES.join(', ')}`)
  return imageName(service, TAG)
}

/** A Job's Helm hooks (`pre-install`, `post-install`, …) and its weight among them. */
const hooksOf = (job: Doc): string[] => String(job.metadata.annotations?.['helm.sh/hook'] ?? '').split(',')
const hookWeight = (job: Doc): number => Number(job.metadata.annotations?.['helm.sh/hook-weight'] ?? 0)

async function startImages (ciValues: string, storeValues: object): Promise<RunningImages> {
  const docs = chartDocs(ciValues, storeValues)
  const secrets = secretsOf(docs)
  const run = `it${process.pid}`
  const components: Component[] = ['objects', 'auth', 'poster', 'gateway']
  const names: string[] = []
  const volumes: string[] = []
  const receiverServer = await receiver()
  const removeAll = async () => {
    for (const name of names) podman(['rm', '-f', '-t', '0', name])
    await receiverServer.close()
    for (const dir of volumes) rmSync(dir, { recursive: true, force: true })
  }

  const securityArgs = (workload: Doc): string[] => {
    const pod = workload.spec.template.spec.securityContext
    const container = containerOf(workload).securityContext
    const args = ['--user', `${pod.runAsUser}:${pod.runAsGroup}`, '--security-opt', 'no-new-privileges', '--cap-drop', 'all']
    if (container.readOnlyRootFilesystem) args.push('--read-only', '--read-only-tmpfs=false')
    return args
  }
  // an emptyDir or a new claim: a fresh directory of the pod's uid and fsGroup (podman 4.3 mounts tmpfs as root's, 0755)
  const emptyDir = (path: string, pod: Doc) => {
    const dir = mkdtempSync(join(tmpdir(), 'image-test-volume-'))
    chownSync(dir, pod.runAsUser, pod.fsGroup)
    chmodSync(dir, 0o770)
    volumes.push(dir)
    return ['-v', `${dir}:${path}`]
  }
  // a ConfigMap volume: readable by everyone, files 0644
  const configMap = (path: string, files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'image-test-config-'))
    chmodSync(dir, 0o755)
    volumes.push(dir)
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text, { mode: 0o644 })
    return ['-v', `${dir}:${path}:ro`]
  }
  /** A pod's mounts: its ConfigMap volumes from `configMaps` (name → files), every other volume a fresh directory. */
  const mountsOf = (workload: Doc, configMaps: Record<string, Record<string, string>>): string[] => {
    const pod = workload.spec.template.spec
    return (containerOf(workload).volumeMounts as Doc[]).flatMap((mount) => {
      const source = (pod.volumes as Doc[]).find((v) => v.name === mount.name)?.configMap?.name
      return source ? configMap(mount.mountPath, must(configMaps[source])) : emptyDir(mount.mountPath, pod.securityContext)
    })
  }
  /** A Job's pod as the kubelet would run it, `env` over the chart's (addresses on loopback). */
  const runJob = (job: Doc, env: Record<string, string>, configMaps: Record<string, Record<string, string>> = {}) => {
    const container = containerOf(job)
    const resolved = { ...resolvedEnv(container, secrets, job.metadata.name), ...env }
    return podman(['run', '--rm', '--network', 'host', ...RUN_LIMITS, ...securityArgs(job), ...mountsOf(job, configMaps),
      ...Object.entries(resolved).flatMap(([k, v]) => ['-e', `${k}=${v}`]), imageOf(container), ...container.command])
  }

  // the hooks before install (the migration Job of store=postgres or mongodb), in their weight order, as Helm runs them before the Deployments
  for (const job of ofKind(docs, 'Job').filter((j) => hooksOf(j).includes('pre-install')).sort((a, b) => hookWeight(a) - hookWeight(b))) {
    const started = Date.now()
    const ran = runJob(job, {})
    if (ran.status !== 0) {
      await removeAll()
      throw new Error(`the hook Job ${job.metadata.name} exited ${ran.status}:\n${ran.stdout}\n${ran.stderr}`)
    }
    console.log(`the hook Job ${job.metadata.name} ran in ${Math.round((Date.now() - started) / 1000)} s`)
  }

  const gatewayConfig = must(ofKind(docs, 'ConfigMap').find((c) => c.metadata.name.endsWith('-gateway-config')))
  const configMaps = { [gatewayConfig.metadata.name]: gatewayConfig.data as Record<string, string> }
  const ports = {} as Record<Component, Ports>
  for (const c of components) ports[c] = { port: await freePort(), metrics: await freePort() }
  const addr = (c: Component) => `127.0.0.1:${ports[c].port}`
  const loopback: Record<Component, Record<string, string>> = {
    objects: { GRPC_HOST: '127.0.0.1', GRPC_PORT: String(ports.objects.port) },
    auth: { GRPC_HOST: '127.0.0.1', GRPC_PORT: String(ports.auth.port) },
    poster: { GRPC_HOST: '127.0.0.1', GRPC_PORT: String(ports.poster.port), OBJECTS_SERVICE_ADDR: addr('objects') },
    gateway: { HOST: '127.0.0.1', PORT: String(ports.gateway.port), OBJECTS_SERVICE_ADDR: addr('objects'), AUTH_SERVICE_ADDR: addr('auth'), POSTER_SERVICE_ADDR: addr('poster') },
  }

  for (const component of components) {
    const workload = deploymentOf(docs, component)
    const container = containerOf(workload)
    const env = { ...resolvedEnv(container, secrets, `content-api-${component}`), ...loopback[component], METRICS_HOST: '127.0.0.1', METRICS_PORT: String(ports[component].metrics) }
    const name = `content-${run}-${component}`
    const started = podman(['run', '-d', '--name', name, '--network', 'host', ...RUN_LIMITS, ...securityArgs(workload), ...mountsOf(workload, configMaps),
      ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]), imageOf(container)])
    names.push(name)
    if (started.status !== 0) {
      await removeAll()
      throw new Error(`podman run ${component}: ${started.stderr}`)
    }
  }
  const base = `http://127.0.0.1:${ports.gateway.port}`
  const logs = (component: Component) => {
    const out = podman(['logs', `content-${run}-${component}`])
    return out.stdout + out.stderr
  }
  const until = Date.now() + 90_000
  for (;;) {
    const ready = await fetch(`${base}/readyz`).then((r) => r.ok, () => false)
    const poster = await fetch(`http://127.0.0.1:${ports.poster.metrics}/metrics`).then((r) => r.ok, () => false)
    if (ready && poster) break
    if (Date.now() > until) {
      const report = components.map((c) => `--- ${c}\n${logs(c)}`).join('\n')
      await removeAll()
      throw new Error(`not ready within 90 s:\n${report}`)
    }
    await new Promise((r) => setTimeout(r, 500))
  }

  const gatewayEnv = resolvedEnv(containerOf(deploymentOf(docs, 'gateway')), secrets, 'admin')
  const adminEnv = {
    SERVICE_SECRET: must(gatewayEnv.SERVICE_SECRET),
    OBJECTS_SERVICE_ADDR: addr('objects'), AUTH_SERVICE_ADDR: addr('auth'), POSTER_SERVICE_ADDR: addr('poster'),
  }
  return {
    base,
    ports,
    receiver: receiverServer,
    admin: (command) => podman(['run', '--rm', '-i', '--network', 'host', ...RUN_LIMITS, '--user', '1000:1000', '--read-only', '--read-only-tmpfs=false', '--cap-drop', 'all',
      ...Object.entries(adminEnv).flatMap(([k, v]) => ['-e', `${k}=${v}`]), imageName('admin', TAG),
      'sh', '-c', `read -r ADMIN_PASSWORD && export ADMIN_PASSWORD && exec content-admin ${command}`], `${ADMIN_PASSWORD}\n`),
    bootstrap: (fixtures) => runJob(must(ofKind(docs, 'Job').find((j) => componentOf(j) === 'admin')), adminEnv, { [FIXTURES_CONFIG_MAP]: fixtures }),
    async terminate (component) {
      const name = `content-${run}-${component}`
      podman(['kill', '--signal', 'TERM', name])
      const waited = podman(['wait', name])
      return { code: Number(waited.stdout.trim()), logs: logs(component) }
    },
    remove: removeAll,
  }
}
