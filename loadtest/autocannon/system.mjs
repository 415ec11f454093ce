// What `bench.mjs` and `one-read.mjs` share: starting the system and the reference servers, a free port,
// each service's CPU from its /metrics, and creates at a steady rate beside the reads.
import { spawn } from 'node:child_process'
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/**
 * Starts a script of the repository; `ready` resolves with the address (or port) it prints when it
 * listens. With `logFile`, its stdout goes to that file, as `npm start > file` would (the system's log
 * lines are then written as in production, not read back by this process), and the file is watched for
 * the ready line.
 */
export function start (script, env, { logFile } = {}) {
  const out = logFile === undefined ? 'pipe' : openSync(logFile, 'a')
  // a file written by an earlier start holds its ready line: only what this start writes counts
  let read = typeof out === 'number' ? fstatSync(out).size : 0
  const child = spawn(process.execPath, [script], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', out, 'inherit'] })
  if (typeof out === 'number') closeSync(out)
  let text = ''
  const readyIn = () => (/ready at (\S+?)\/?\s*$/m.exec(text) ?? /^(\d+)\s*$/m.exec(text))?.[1]
  const ready = new Promise((res, rej) => {
    if (logFile === undefined) {
      child.stdout.on('data', (chunk) => {
        text += chunk
        const address = readyIn()
        if (address) res(address)
      })
    } else {
      const timer = setInterval(() => {
        const fresh = bytesFrom(logFile, read)
        read += fresh.length
        text += fresh.toString('utf8')
        const address = readyIn()
        if (address) { clearInterval(timer); res(address) }
      }, 200)
      child.once('exit', () => clearInterval(timer))
    }
    child.once('exit', (code) => rej(new Error(`${script} exited with ${code}\n${text.slice(-4000)}`)))
  })
  return { child, ready }
}

/** What `file` holds from byte `position` on. */
function bytesFrom (file, position) {
  const fd = openSync(file, 'r')
  try {
    const bytes = Buffer.alloc(Math.max(0, fstatSync(fd).size - position))
    const got = readSync(fd, bytes, 0, bytes.length, position)
    return bytes.subarray(0, got)
  } finally {
    closeSync(fd)
  }
}

export { freePort } from '../../scripts/launcher/ports.mjs'

/** CPU seconds each service has used so far, from its process_cpu_seconds_total (`metricsUrls`: services.json's `metrics`). */
export async function cpuSecondsOf (metricsUrls) {
  const entries = await Promise.all(Object.entries(metricsUrls).map(async ([service, url]) => {
    // a service too busy to answer (or restarted) leaves a gap in the figures, not the run
    const text = await fetch(url, { signal: AbortSignal.timeout(30_000) }).then((r) => r.text(), () => '')
    return [service, Number(/^process_cpu_seconds_total (\S+)$/m.exec(text)?.[1] ?? NaN)]
  }))
  return Object.fromEntries(entries)
}

/** How many calls of `methods` the service of `metricsUrl` answered so far (rpc_server_call_duration_seconds), and how many of them as batch members (content_batched_calls_total). */
export async function callsAnsweredAt (metricsUrl, methods) {
  const text = await fetch(metricsUrl, { signal: AbortSignal.timeout(30_000) }).then((r) => r.text(), () => '')
  const out = { batched: 0 }
  for (const m of methods) out[m] = 0
  for (const line of text.split('\n')) {
    const hit = /^rpc_server_call_duration_seconds_count\{.*rpc_method="(\w+)".*\} (\d+)/.exec(line)
    if (hit && hit[1] in out) out[hit[1]] += Number(hit[2])
    const member = /^content_batched_calls_total\{rpc_method="(\w+)"\} (\d+)/.exec(line)
    if (member && methods.includes(member[1])) out.batched += Number(member[2])
  }
  return out
}

/**
 * Creates documents at `perSecond` (on average: a late timer catches up) through the gateway until
 * stopped; counts answers by status (`reasons`: the failures by status or error code). With `onCreated`, each 201 is told as (the new object's id, when the
 * request started, when its answer came: `performance.now()`). `settled()`, after `stop()`, waits for the
 * creates still under way.
 */
export function writeLoop (base, token, parent, perSecond, onCreated) {
  const counts = { ok: 0, failed: 0, reasons: {} }
  const fail = (reason) => {
    counts.failed++
    counts.reasons[reason] = (counts.reasons[reason] ?? 0) + 1
  }
  const underWay = new Set()
  let n = 0
  const began = performance.now()
  const send = () => {
    const startedAt = performance.now()
    const write = fetch(`${base}/objects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { object_type: 'document', title: `written during the mixed run ${++n}`, parents: [parent] } }),
    }).then(async (res) => {
      const answeredAt = performance.now()
      if (res.status !== 201) return fail(String(res.status))
      const id = onCreated ? (await res.json()).data.object.id : undefined
      counts.ok++
      if (id !== undefined) onCreated(String(id), startedAt, answeredAt)
    }).catch((err) => fail(err.cause?.code ?? err.name)).finally(() => underWay.delete(write))
    underWay.add(write)
  }
  // a late tick sends every create due by then: a busy event loop does not lower the rate
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - began) * perSecond) / 1000)
    while (n < due) send()
  }, 1000 / perSecond)
  return { counts, stop: () => clearInterval(timer), settled: () => Promise.all(underWay) }
}

/** Loads the bench's store of `total` objects (fixtures.mjs benchFixtures) into a system started in `dataDir`; answers the refs' ids. */
export async function seedBenchStore (dataDir, password, total = 10_000) {
  const { readFileSync, writeFileSync } = await import('node:fs')
  const { join } = await import('node:path')
  const { benchFixtures } = await import('./fixtures.mjs')
  const { seedFile } = await import('@content/admin')
  const services = JSON.parse(readFileSync(join(dataDir, 'services.json'), 'utf8'))
  const fixtures = join(dataDir, 'bench-fixtures.json')
  writeFileSync(fixtures, JSON.stringify(benchFixtures({ total })))
  return seedFile(fixtures, services, { serviceSecret: readFileSync(join(dataDir, 'service-secret'), 'utf8'), username: 'admin', password })
}
