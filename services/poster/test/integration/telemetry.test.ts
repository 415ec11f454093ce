import { TEST_IDENTITY_ENV } from '@content/platform/testing'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import * as grpc from '@grpc/grpc-js'
import { afterAll, describe, expect, it } from 'vitest'
import { loadContentProtos } from '@content/protos'

const ROOT = resolve(import.meta.dirname, '../../../..')
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c'
const PARENT_SPAN = 'b7ad6b7169203331'
const DATA_DIR = mkdtempSync(join(tmpdir(), 'poster-telemetry-'))
afterAll(() => rmSync(DATA_DIR, { recursive: true, force: true }))

function startWithTelemetry (env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', '@content/platform/telemetry', 'services/poster/dist/main.js'], {
    cwd: ROOT,
    env: {
      ...process.env, GRPC_HOST: '127.0.0.1', GRPC_PORT: '0', LOG_LEVEL: 'info',
      MEDIA_SIGNING_KEY: 'telemetry-test-signing-key-0123456789', DATA_DIR, ...TEST_IDENTITY_ENV, ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (c) => { out += String(c) })
  child.stderr.on('data', (c) => { out += String(c) })
  const port = new Promise<number>((res, rej) => {
    child.stdout.on('data', () => {
      const m = /"port":(\d+)/.exec(out)
      if (m) res(Number(m[1]))
    })
    child.once('exit', (code) => rej(new Error(`exited ${code}: ${out}`)))
  })
  return { child, port, output: () => out }
}

function callWithTraceparent (port: number): Promise<void> {
  const { PosterService } = loadContentProtos().content.v1
  const client = new PosterService(`127.0.0.1:${port}`, grpc.credentials.createInsecure())
  const metadata = new grpc.Metadata()
  metadata.set('traceparent', `00-${TRACE_ID}-${PARENT_SPAN}-01`)
  return new Promise((res) => client.GetPoster({ object_id: '1' }, metadata, () => { client.close(); res() }))
}

async function stopAndCollect (run: ReturnType<typeof startWithTelemetry>): Promise<string> {
  const exited = new Promise((r) => run.child.once('exit', r))
  run.child.kill('SIGTERM')
  await exited
  return run.output()
}

describe('the OpenTelemetry preload', () => {
  it('when an exporter is configured, then a backend span joins the caller\'s W3C trace context', async () => {
    const run = startWithTelemetry({ OTEL_TRACES_EXPORTER: 'console', OTEL_SERVICE_NAME: 'poster-under-test' })
    await callWithTraceparent(await run.port)
    const output = await stopAndCollect(run)
    expect(output).toContain(`traceId: '${TRACE_ID}'`)
    expect(output).toContain(`spanId: '${PARENT_SPAN}'`)
    expect(output).toContain("'service.name': 'poster-under-test'")
  })

  it('when no exporter is configured, then telemetry stays off', async () => {
    const run = startWithTelemetry({ OTEL_TRACES_EXPORTER: '', OTEL_EXPORTER_OTLP_ENDPOINT: '' })
    await callWithTraceparent(await run.port)
    const output = await stopAndCollect(run)
    expect(output).not.toContain('traceId')
    expect(output).toContain('poster service listening')
  })
})
