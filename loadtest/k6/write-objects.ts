/**
 * Writes as an administrator: create a document under a run-owned section, relate it, move it to
 * the top of the section, delete it. setup() creates the section; teardown() removes what is left.
 *
 *   k6 run -e BASE_URL=... -e ADMIN_PASSWORD=... -e PRESET=smoke loadtest/k6/write-objects.ts
 */
import { sleep } from 'k6'
import { credentialsOf, readConfig } from '../lib/config.ts'
import { summaryHandler } from '../lib/summary.ts'
import { healthGate } from './lib/http.ts'
import { runOptions } from './lib/presets.ts'
import { WRITE_BUDGETS, createRunSection, removeRunSection, writeIteration, type WriteData, type Writer } from './lib/writes.ts'

const config = readConfig(__ENV, { needsCredentials: true, script: 'write-objects' })
const [username, password] = credentialsOf(config)
const writer: Writer = { base: config.baseUrl, username, password }

export const options = runOptions(config, { write_objects: WRITE_BUDGETS })

export function setup (): WriteData {
  healthGate(writer.base)
  return createRunSection(writer)
}

export default function (data: WriteData): void {
  writeIteration(writer, data)
  sleep(config.thinkTimeSeconds)
}

export function teardown (data: WriteData): void {
  removeRunSection(writer, data)
}

export const handleSummary = summaryHandler(config.testId, config.summaryFile)
