/**
 * Public reads: GET /objects/{id}, paging through children of sections, relation lists.
 * Ids come from setup(), which reads /objects and the children of the sections it finds.
 *
 *   k6 run -e BASE_URL=http://localhost:8080 -e PRESET=average -e VUS=20 loadtest/k6/read-objects.ts
 */
import { sleep } from 'k6'
import { readConfig } from '../lib/config.ts'
import { summaryHandler } from '../lib/summary.ts'
import { healthGate } from './lib/http.ts'
import { runOptions } from './lib/presets.ts'
import { READ_BUDGETS, collectReadData, readIteration, type ReadData } from './lib/reads.ts'

const config = readConfig(__ENV, { script: 'read-objects' })
const BASE = config.baseUrl

export const options = runOptions(config, { read_objects: READ_BUDGETS })

export function setup (): ReadData {
  healthGate(BASE)
  return collectReadData(BASE)
}

export default function (data: ReadData): void {
  readIteration(BASE, config.pageSize, data)
  sleep(config.thinkTimeSeconds)
}

export const handleSummary = summaryHandler(config.testId, config.summaryFile)
