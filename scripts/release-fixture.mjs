#!/usr/bin/env node
// Makes test/fixtures/release-16aab38: the data directory an earlier release leaves, for the upgrade test
// (test/upgrade.test.ts). Run with a built checkout of that release:
//   git archive 16aab38 | tar -x -C /tmp/release && cp -al node_modules /tmp/release/ \
//     && (cd /tmp/release && npx turbo run build --filter=@content/gateway --filter=@content/auth \
//         --filter=@content/objects --filter=@content/poster --filter=@content/admin)
//   node scripts/release-fixture.mjs /tmp/release test/fixtures/release-16aab38
// It starts that release as `npm start` does (demo publication seeded), logs in, has a thumbnail rendered,
// records what the API answers in release.json, stops it, and copies its data directory.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { freePort } from './launcher/ports.mjs'

const [release, out] = process.argv.slice(2).map((p) => resolve(p))
if (!release || !out) {
  console.error('usage: node scripts/release-fixture.mjs <built release checkout> <out dir>')
  process.exit(2)
}
const ADMIN = { username: 'admin', password: 'release-fixture-admin-password' }
const dataDir = mkdtempSync(join(tmpdir(), 'release-fixture-'))
const port = await freePort()
const base = `http://127.0.0.1:${port}`

const child = spawn(process.execPath, [join(release, 'scripts/start.mjs')], {
  cwd: release,
  env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: String(port), ADMIN_PASSWORD: ADMIN.password, LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'pipe'],
})
let output = ''
child.stdout.on('data', (chunk) => { output += String(chunk) })
child.stderr.on('data', (chunk) => { output += String(chunk) })
const exited = new Promise((done) => child.once('exit', done))
// whatever fails below, the release stops with this script
process.on('exit', () => { if (child.exitCode === null) child.kill('SIGTERM') })
const until = Date.now() + 120_000
while (!output.includes('ready at')) {
  if (Date.now() > until || child.exitCode !== null) throw new Error(`the release did not start:\n${output}`)
  await new Promise((r) => setTimeout(r, 200))
}

const call = async (method, path, body, token) => {
  const res = await fetch(`${base}${path}`, {
    method, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
  return res
}
const json = async (...args) => (await (await call(...args)).json()).data
const sha256 = async (path) => createHash('sha256').update(Buffer.from(await (await call('GET', path)).arrayBuffer())).digest('hex')

const tokens = await json('POST', '/auth', { username: ADMIN.username, password: ADMIN.password })
const objects = (await json('GET', '/objects?page_size=100', undefined, tokens.access_token)).objects
const media = []
for (const o of objects) {
  if (!o.uri) continue
  media.push({ id: o.id, path: new URL(o.uri).pathname, sha256: await sha256(new URL(o.uri).pathname) })
}
const image = objects.find((o) => o.object_type === 'image')
const poster = await json('GET', `/poster/${image.id}?width=120`)
const thumbnailPath = new URL(poster.uri).pathname + new URL(poster.uri).search
const thumbnail = { path: thumbnailPath, sha256: await sha256(thumbnailPath) }
const children = {}
for (const o of objects.filter((x) => x.object_type === 'section')) {
  children[o.id] = (await json('GET', `/objects/${o.id}/children?page_size=100`)).objects.map((c) => c.id)
}

child.kill('SIGTERM')
await exited
rmSync(join(dataDir, 'services.json'), { force: true })
rmSync(out, { recursive: true, force: true })
cpSync(dataDir, out, { recursive: true })
writeFileSync(join(out, 'release.json'), `${JSON.stringify({
  release: '16aab38', admin: ADMIN, refresh_token: tokens.refresh_token, objects, children, media, thumbnail,
}, null, 2)}\n`)
rmSync(dataDir, { recursive: true, force: true })
console.log(`${out}: ${objects.length} objects, ${media.length} media files`)
