#!/usr/bin/env node
// `node scripts/compare-answers.mjs <before-checkout> [<after-checkout>]`: starts two built checkouts of
// the system side by side, each on a fresh demo store with the read cache off, sends both the same
// requests (reads as anonymous and as administrator below default and object-type endpoints, and writes
// with valid and malformed bodies, in the same order), and prints every answer that differs in status,
// Location/Allow/WWW-Authenticate or body. Times and thumbnail signatures (each store has its own
// key) are masked. Then every read again, all at once to each system (a coalescing gateway batches them).
// Exits 1 when any answer differs.
import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
const conf = join(tmpdir(), 'diff-routing.json')
writeFileSync(conf, JSON.stringify({ objectTypeEndpoints: ['documents', 'sections', 'images', 'events'] }))
function start (root, port) {
  const dataDir = mkdtempSync(join(tmpdir(), 'diff-'))
  const child = spawn(process.execPath, ['scripts/start.mjs'], { cwd: root, env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), ADMIN_PASSWORD: 'diff-admin-password', LOG_LEVEL: 'warn', READ_CACHE: 'false', CONFIG_FILE: conf }, stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  return { child, ready: new Promise((res) => child.stdout.on('data', (c) => { out += c; if (/ready at/.test(out)) res(`http://127.0.0.1:${port}`) })) }
}
const [before, after = '.'] = process.argv.slice(2)
if (!before) {
  console.error('usage: node scripts/compare-answers.mjs <before-checkout> [<after-checkout>]')
  process.exit(2)
}
const sys = [start(resolve(before), 18301), start(resolve(after), 18302)]
const bases = await Promise.all(sys.map((s) => s.ready))
const tokens = await Promise.all(bases.map(async (b) => (await (await fetch(`${b}/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'diff-admin-password' }) })).json()).data.access_token))
const norm = (t, base) => t.replaceAll(base, 'BASE').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)/g, 'TIME').replace(/"(created|modified)":\d+/g, '"$1":N').replace(/sig=[\w-]+/g, 'sig=SIG')
const ids = {}
const list = await (await fetch(`${bases[0]}/objects?page_size=100`)).json()
for (const o of list.data.objects) ids[o.nickname] = o.id
const [welcome, news, about, cover, launch] = ['welcome', 'news', 'about', 'cover', 'launch'].map((n) => ids[n])
const reads = []
for (const who of ['anon', 'admin']) {
  for (const p of ['/objects', `/objects/${welcome}`, '/objects/welcome', '/objects/99999', '/objects/members-only',
    `/documents/${welcome}`, `/documents/${news}`, '/documents/news', '/sections/news', '/sections/welcome', `/images/${cover}`, `/events/${launch}`, '/documents/99999', '/documents/members-only',
    '/objects/welcome/relations', `/objects/${welcome}/relations`, '/documents/welcome/relations', '/sections/welcome/relations', '/objects/news/relations', '/images/cover/relations',
    `/documents/${welcome}/relations/attach`, '/documents/welcome/relations/seealso', `/sections/${welcome}/relations/attach`, `/documents/${welcome}/relations/bogus`, `/documents/${welcome}/relations/attach/${cover}`, `/documents/${welcome}/relations/attach/99999`, `/sections/${news}/relations/attach/${cover}`,
    '/sections/news/children', '/sections/news/descendants', '/documents/news/children', '/documents/welcome/children', '/sections/welcome/children', '/sections/news/sections', '/sections/news/contents', '/documents/welcome/parents', '/documents/welcome/ancestors', '/documents/welcome/siblings', '/sections/news/parents',
    `/sections/news/children/${welcome}`, `/documents/news/children/${welcome}`, `/sections/news/children/99999`, '/sections/members-only/children',
    '/documents?filter[query]=wel', '/objects?filter[object_type]=document', `/poster/${welcome}`, '/documents/welcome?lang=it', '/documents/welcome/relations?page=2', '/sections/news/children?page_size=1&page=2']) reads.push({ who, method: 'GET', path: p })
}
const writes = [
  ['POST', '/objects', { title: 'no data' }], ['POST', '/objects', null], ['POST', '/objects', { data: [1] }], ['POST', '/objects', { data: null }],
  ['POST', '/objects', { data: { object_type: 'document', title: 'Diff doc', parents: [news] } }],
  ['POST', `/objects/${welcome}/relations/attach`, { data: [{ related_id: 'x' }, 7] }], ['POST', `/objects/${welcome}/relations/attach`, { data: [] }],
  ['POST', `/objects/${welcome}/relations/attach`, {}], ['POST', `/objects/${welcome}/relations/attach`, { data: null }], ['POST', '/objects/99999/relations/attach', { data: { related_id: 'x' } }],
  ['POST', `/objects/${welcome}/relations/bogus`, { data: { related_id: 'x' } }], ['POST', `/objects/${welcome}/relations/attach`, { data: { related_id: cover, params: [1], extra: 2 } }],
  ['POST', `/objects/${welcome}/relations/seealso`, { data: { related_id: 99999 } }], ['POST', `/objects/${welcome}/relations/seealso`, { data: [{ related_id: about }, { related_id: about }] }],
  ['POST', `/objects/${welcome}/relations/seealso`, { data: { related_id: launch, priority: 3, params: { a: 'b' } } }],
  ['PUT', `/objects/${welcome}/relations/seealso/${launch}`, { data: {} }], ['PUT', `/objects/${welcome}/relations/seealso/${launch}`, { data: 5 }], ['PUT', `/objects/${welcome}/relations/seealso/${launch}`, {}],
  ['PUT', `/objects/${welcome}/relations/seealso/${launch}`, { data: { priority: -1, params: 'x', z: 1 } }], ['PUT', `/objects/99999/relations/seealso/${launch}`, { data: {} }],
  ['PUT', `/objects/${welcome}/relations/seealso/${launch}`, { data: { params: { b: 1 } } }], ['PUT', `/objects/${welcome}/relations/seealso/99999`, { data: { priority: 1 } }],
  ['POST', `/objects/${news}/children`, { data: [{ child_id: 'x' }] }], ['POST', `/objects/${news}/children`, { data: [] }], ['POST', `/objects/${welcome}/children`, { data: [] }], ['POST', '/objects/99999/children', { data: 3 }],
  ['POST', `/objects/${news}/children`, {}], ['POST', `/objects/${about}/children`, { data: { child_id: welcome, priority: 4 } }],
  ['PUT', `/objects/${news}/children/${welcome}`, { data: { priority: 'x' } }], ['PUT', `/objects/${news}/children/${welcome}`, {}], ['PUT', `/objects/${welcome}/children/${news}`, { data: { priority: 'x' } }],
  ['PUT', `/objects/${news}/children/${welcome}`, { data: { priority: 2, child_id: 1 } }], ['PUT', `/objects/${news}/children/${welcome}`, { data: { priority: 2 } }], ['PUT', `/objects/${news}/children/99999`, { data: { priority: 2 } }],
  ['DELETE', `/objects/${welcome}/relations/seealso/${launch}`], ['DELETE', `/objects/${about}/children/${welcome}`],
]
// what the router answers itself: unknown, malformed, surplus and missing path segments, and methods a path takes not
const routing = [
  ['GET', '/nope'], ['PATCH', '/nope'], ['GET', '/objects/0'], ['GET', '/objects/9007199254740992'], [`GET`, `/objects/${welcome}/bogus`], ['POST', `/objects/${welcome}/bogus/1`],
  ['GET', `/objects/${news}/contents/3`], ['GET', `/objects/${news}/ancestors`], ['GET', `/objects/${welcome}/relations/attach/0`], ['GET', `/objects/${news}/children/x`],
  ['PATCH', '/objects'], ['PUT', `/objects/${welcome}`], ['POST', '/documents'], ['DELETE', `/documents/${welcome}`], ['GET', `/documents/${welcome}/bogus`], ['POST', `/documents/${welcome}/children`],
  ['GET', '/me/x'], ['GET', '/auth/a/b'], ['PUT', '/auth'], ['GET', '/files/image/a.png'], ['POST', '/files/image/a.png/b'],
  ['GET', '/media'], ['GET', '/media/1'], ['GET', '/media/0/a.png'], ['POST', '/media/1/a.png'], ['GET', '/thumbnails/one'],
  ['GET', '/docs/nope'], ['GET', '/docs/assets'], ['GET', '/docs/assets/a/b'], ['GET', '/docs/errors/x'], ['GET', '/openapi.json/x'], ['POST', '/docs'],
].map(([method, path]) => ({ who: 'anon', method, path }))
const all = [...reads, ...routing, ...writes.map(([method, path, body]) => ({ who: 'admin', method, path, body })), ...writes.slice(0, 6).map(([method, path, body]) => ({ who: 'anon', method, path, body }))]
let same = 0; const diffs = []
for (const r of all) {
  const answers = []
  for (let i = 0; i < 2; i++) {
    const headers = { ...(r.who === 'admin' ? { authorization: `Bearer ${tokens[i]}` } : {}), ...(r.body !== undefined ? { 'content-type': 'application/json' } : {}) }
    const res = await fetch(bases[i] + r.path, { method: r.method, headers, ...(r.body !== undefined ? { body: r.body === null ? '' : JSON.stringify(r.body) } : {}) })
    const h = ['location', 'allow', 'www-authenticate'].map((k) => `${k}=${res.headers.get(k)}`).join(' ')
    answers.push(`${res.status} ${norm(h, bases[i])} ${norm(await res.text(), bases[i])}`)
  }
  if (answers[0] === answers[1]) same++
  else {
    // around the first character that differs
    let at = 0
    while (answers[0][at] === answers[1][at]) at++
    const around = (text) => text.slice(Math.max(0, at - 120), at + 280)
    diffs.push(`${r.who} ${r.method} ${r.path} ${JSON.stringify(r.body)}\n  before: …${around(answers[0])}\n  after:  …${around(answers[1])}`)
  }
}
// the reads again, every one sent at once to each system: a gateway that coalesces the reads of one turn
// into one backend call must answer each exactly as it answers it alone
const answerOf = async (r, i) => {
  const res = await fetch(bases[i] + r.path, { headers: r.who === 'admin' ? { authorization: `Bearer ${tokens[i]}` } : {} })
  return `${res.status} ${norm(await res.text(), bases[i])}`
}
const together = await Promise.all([0, 1].map((i) => Promise.all(reads.map((r) => answerOf(r, i)))))
let sameTogether = 0
reads.forEach((r, k) => {
  if (together[0][k] === together[1][k]) sameTogether++
  else diffs.push(`concurrent ${r.who} GET ${r.path}\n  before: ${together[0][k].slice(0, 300)}\n  after:  ${together[1][k].slice(0, 300)}`)
})
console.log(`${all.length} requests: ${same} identical, ${diffs.length - (reads.length - sameTogether)} different; ${reads.length} reads sent at once: ${sameTogether} identical`)
for (const d of diffs) console.log(d)
for (const s of sys) s.child.kill('SIGTERM')
if (diffs.length > 0) process.exitCode = 1
