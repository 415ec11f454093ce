/**
 * Reads and writes at once, as a site being edited while it is read: two scenarios of one run, `reads`
 * (read-objects.ts's iteration) and `writes` (write-objects.ts's), splitting the load by WRITE_SHARE, each
 * with its own thresholds. Best with an arrival-rate preset, which holds each rate whatever the other does.
 *
 *   k6 run -e BASE_URL=... -e ADMIN_PASSWORD=... -e PRESET=constant-rate -e RATE=200 -e WRITE_SHARE=0.1 loadtest/k6/mixed.ts
 */
import { sleep } from 'k6'
import { credentialsOf, readConfig } from '../lib/config.ts'
import { summaryHandler } from '../lib/summary.ts'
import { healthGate } from './lib/http.ts'
import { runOptions } from './lib/presets.ts'
import { READ_BUDGETS, collectReadData, readIteration, type ReadData } from './lib/reads.ts'
import { WRITE_BUDGETS, createRunSection, removeRunSection, writeIteration, type WriteData, type Writer } from './lib/writes.ts'

const config = readConfig(__ENV, { needsCredentials: true, script: 'mixed' })
const [username, password] = credentialsOf(config)
const writer: Writer = { base: config.baseUrl, username, password }
const writeShare = Number(__ENV.WRITE_SHARE ?? '0.1')
if (!(writeShare > 0 && writeShare < 1)) throw new Error(`invalid k6 settings:\n  - WRITE_SHARE must be a fraction between 0 and 1, got "${__ENV.WRITE_SHARE}"`)

export const options = runOptions(config, {
  reads: { exec: 'reads', share: 1 - writeShare, ...READ_BUDGETS },
  writes: { exec: 'writes', share: writeShare, ...WRITE_BUDGETS },
})

interface MixedData { read: ReadData, write: WriteData }

export function setup (): MixedData {
  healthGate(writer.base)
  return { read: collectReadData(writer.base), write: createRunSection(writer) }
}

export function reads (data: MixedData): void {
  readIteration(writer.base, config.pageSize, data.read)
  sleep(config.thinkTimeSeconds)
}

export function writes (data: MixedData): void {
  writeIteration(writer, data.write)
  sleep(config.thinkTimeSeconds)
}

export function teardown (data: MixedData): void {
  removeRunSection(writer, data.write)
}

export const handleSummary = summaryHandler(config.testId, config.summaryFile)
