/** The `helm test` hook pod: what it runs, and that its script passes only when the gateway answers. */
import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import {
  CI_VALUES, containerOf, deploymentOf, envValue, helmSkipReason, ofComponent, ofKind, render, skipTitle, type Doc,
} from './support/chart.js'
import { must } from './support/must.js'

const hookPod = (docs: ReturnType<typeof render>): Doc => must(ofKind(docs, 'Pod')[0])

/** Runs the pod's command with node, against a stand-in gateway answering `statuses` by path. */
async function runAgainst (pod: Doc, statuses: Record<string, number> | 'down'): Promise<{ code: number | null, output: string }> {
  const c = pod.spec.containers[0]
  let server: Server | undefined
  let url = 'http://127.0.0.1:9' // discard port: nothing listens
  if (statuses !== 'down') {
    server = createServer((req, res) => { res.statusCode = statuses[req.url ?? ''] ?? 404; res.end('{}') })
    await new Promise<void>((resolve) => must(server).listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }
  try {
    const env = { ...Object.fromEntries((c.env as Doc[]).map((e) => [e.name, e.value])), GATEWAY_URL: url, PATH: process.env.PATH }
    const [command, ...args] = c.command as string[]
    return await new Promise((resolve) => {
      const child = spawn(command === 'node' ? process.execPath : must(command), args, { env })
      let output = ''
      child.stdout.on('data', (d) => { output += d })
      child.stderr.on('data', (d) => { output += d })
      child.on('close', (code) => resolve({ code, output }))
    })
  } finally {
    server?.close()
  }
}

describe.skipIf(helmSkipReason)(`helm test hook${skipTitle}`, () => {
  it('is a test hook Pod, replaced before each run and removed when it passes, never restarted', () => {
    const pod = hookPod(render([must(CI_VALUES.minimal)]))
    expect(pod.metadata.annotations).toEqual({
      'helm.sh/hook': 'test', 'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    })
    expect(pod.spec.restartPolicy).toBe('Never')
  })

  it.each(Object.keys(CI_VALUES))('ci/%s: runs the gateway image (nothing else to pull) with node -e', (name) => {
    const docs = render([must(CI_VALUES[name])])
    const pod = hookPod(docs)
    expect(pod.spec.containers).toHaveLength(1)
    expect(pod.spec.containers[0].image).toBe(containerOf(deploymentOf(docs, 'gateway')).image)
    expect(pod.spec.containers[0].command.slice(0, 2)).toEqual(['node', '-e'])
  })

  it('asks the gateway Service on its port, under the configured base path', () => {
    const docs = render([must(CI_VALUES.full)])
    const service = ofComponent(docs, 'Service', 'gateway')
    const c = hookPod(docs).spec.containers[0]
    expect(envValue(c, 'GATEWAY_URL')).toBe(`http://${service.metadata.name}:${service.spec.ports[0].port}`)
    expect(envValue(c, 'OBJECTS_PATH')).toBe('/api/objects')
    expect(envValue(hookPod(render([must(CI_VALUES.minimal)])).spec.containers[0], 'OBJECTS_PATH')).toBe('/objects')
  })

  it('passes when /readyz and /objects both answer 200', async () => {
    const out = await runAgainst(hookPod(render([must(CI_VALUES.minimal)])), { '/readyz': 200, '/objects': 200 })
    expect(out.code, out.output).toBe(0)
    expect(out.output).toContain('GET /readyz -> 200')
    expect(out.output).toContain('GET /objects -> 200')
  })

  it.each([
    ['a backend is not ready', { '/readyz': 503, '/objects': 200 }],
    ['/objects fails', { '/readyz': 200, '/objects': 500 }],
    ['/objects is missing (base path mismatch)', { '/readyz': 200 }],
  ])('fails when %s', async (_what, statuses) => {
    const out = await runAgainst(hookPod(render([must(CI_VALUES.minimal)])), statuses)
    expect(out.code, out.output).not.toBe(0)
  })

  it('fails when the gateway cannot be reached', async () => {
    const out = await runAgainst(hookPod(render([must(CI_VALUES.minimal)])), 'down')
    expect(out.code, out.output).not.toBe(0)
  })
})
