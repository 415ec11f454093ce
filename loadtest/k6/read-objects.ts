/**
 * Public reads: GET /objects/{id}, paging through children of sections, relation lists.
 * Ids come from setup(), which reads /objects and the children of the sections it finds.
 *
 *   k6 run -e BASE_URL=http://localhost:8080 -e PRESET=average -e VUS=20 loadtest/k6/read-objects.ts
 */
import { check, sleep } from 'k6'
import type { Options } from 'k6/options'
import { listedObjects, objectOf, pagingOf, relationNames } from '../lib/envelope.ts'
import { randomPage, pageQuery, pagingProblems } from '../lib/paging.ts'
import { pick } from '../lib/sample.ts'
import { readConfig } from '../lib/config.ts'
import { call, expectEnvelope, healthGate } from './lib/http.ts'
import { scenarioFor, thresholdsFor } from './lib/presets.ts'

const config = readConfig(__ENV)
const BASE = config.baseUrl

export const options: Options = {
  scenarios: { read_objects: scenarioFor(config.preset, config.vus) },
  thresholds: thresholdsFor({ p95: 300, p99: 800 }, {
    'GET /objects/{id}': { p95: 200, p99: 500 },
    'GET /objects/{id}/children': { p95: 300, p99: 800 },
  }),
}

interface Section { id: number, childCount: number }
interface ReadData { objectIds: number[], sections: Section[] }

const SETUP_PAGES = 5
const SETUP_SECTIONS = 50

export function setup (): ReadData {
  healthGate(BASE)
  const ids = new Set<number>()
  const sectionIds = new Set<number>([1]) // the publication has children too
  for (let page = 1; page <= SETUP_PAGES; page++) {
    const r = call('GET', `${BASE}/objects?${pageQuery(page, 100)}`, 'GET /objects')
    for (const o of listedObjects(r.body)) {
      ids.add(o.id)
      if (o.object_type === 'section') sectionIds.add(o.id)
    }
    const paging = pagingOf(r.body)
    if (paging === undefined || page >= paging.total_pages) break
  }
  const sections: Section[] = []
  for (const id of [...sectionIds].slice(0, SETUP_SECTIONS)) {
    const r = call('GET', `${BASE}/objects/${id}/children?${pageQuery(1, 1)}`, 'GET /objects/{id}/children')
    const total = pagingOf(r.body)?.total ?? 0
    if (total > 0) sections.push({ id, childCount: total })
    for (const child of listedObjects(r.body)) ids.add(child.id)
  }
  if (ids.size === 0) throw new Error('GET /objects listed nothing: load fixtures first (see loadtest/k6/README.md)')
  return { objectIds: [...ids], sections }
}

export default function (data: ReadData): void {
  readObject(pick(data.objectIds))
  if (data.sections.length > 0) readChildrenPage(pick(data.sections))
  sleep(config.thinkTimeSeconds)
}

function readObject (id: number): void {
  const name = 'GET /objects/{id}'
  const r = call('GET', `${BASE}/objects/${id}`, name)
  expectEnvelope(r, name, 200, { api: 'objects', method: 'get' })
  const object = objectOf(r.body)
  check(object, { [`${name} has the asked id`]: (o) => o?.id === id })
  const relations = relationNames(object)
  if (relations.length === 0) return
  const relName = 'GET /objects/{id}/relations/{name}'
  const rel = call('GET', `${BASE}/objects/${id}/relations/${pick(relations)}?${pageQuery(1, config.pageSize)}`, relName)
  expectEnvelope(rel, relName, 200, { list: true })
}

function readChildrenPage (section: Section): void {
  const name = 'GET /objects/{id}/children'
  const page = randomPage(Math.ceil(section.childCount / config.pageSize))
  const r = call('GET', `${BASE}/objects/${section.id}/children?${pageQuery(page, config.pageSize)}`, name)
  expectEnvelope(r, name, 200, { list: true })
  check(r.body, { [`${name} paging adds up`]: (b) => pagingProblems(pagingOf(b), page, config.pageSize).length === 0 })
}
