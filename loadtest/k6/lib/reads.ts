/**
 * Public reads, shared by read-objects.ts and mixed.ts: GET /objects/{id} (and one of its relation lists),
 * a random page of a section's children. setup() collects the ids from /objects and the sections' children.
 */
import { check } from 'k6'
import { listedObjects, objectOf, pagingOf, relationNames } from '../../lib/envelope.ts'
import { pageQuery, pagingProblems, randomPage } from '../../lib/paging.ts'
import { pick } from '../../lib/sample.ts'
import type { LatencyBudget } from './presets.ts'
import { call, expectEnvelope } from './http.ts'

export interface Section { id: number, childCount: number }
export interface ReadData { objectIds: number[], sections: Section[] }

export const READ_BUDGETS: { overall: LatencyBudget, perName: Record<string, LatencyBudget> } = {
  overall: { p95: 300, p99: 800 },
  perName: {
    'GET /objects/{id}': { p95: 200, p99: 500 },
    'GET /objects/{id}/children': { p95: 300, p99: 800 },
  },
}

const SETUP_PAGES = 5
const SETUP_SECTIONS = 50

/** setup(): up to 5 pages of 100 objects, and the children of up to 50 sections. */
export function collectReadData (base: string): ReadData {
  const ids = new Set<number>()
  const sectionIds = new Set<number>([1]) // the publication has children too
  for (let page = 1; page <= SETUP_PAGES; page++) {
    const r = call('GET', `${base}/objects?${pageQuery(page, 100)}`, 'GET /objects')
    for (const o of listedObjects(r.body)) {
      ids.add(o.id)
      if (o.object_type === 'section') sectionIds.add(o.id)
    }
    const paging = pagingOf(r.body)
    if (paging === undefined || page >= paging.total_pages) break
  }
  const sections: Section[] = []
  for (const id of [...sectionIds].slice(0, SETUP_SECTIONS)) {
    const r = call('GET', `${base}/objects/${id}/children?${pageQuery(1, 1)}`, 'GET /objects/{id}/children')
    const total = pagingOf(r.body)?.total ?? 0
    if (total > 0) sections.push({ id, childCount: total })
    for (const child of listedObjects(r.body)) ids.add(child.id)
  }
  if (ids.size === 0) throw new Error('GET /objects listed nothing: load fixtures first (see loadtest/k6/README.md)')
  return { objectIds: [...ids], sections }
}

/** One read iteration: an object (and a relation list it has), then a page of a section's children. */
export function readIteration (base: string, pageSize: number, data: ReadData): void {
  readObject(base, pageSize, pick(data.objectIds))
  if (data.sections.length > 0) readChildrenPage(base, pageSize, pick(data.sections))
}

function readObject (base: string, pageSize: number, id: number): void {
  const name = 'GET /objects/{id}'
  const r = call('GET', `${base}/objects/${id}`, name)
  expectEnvelope(r, name, 200, { api: 'objects', method: 'get' })
  const object = objectOf(r.body)
  check(object, { [`${name} has the asked id`]: (o) => o?.id === id })
  const relations = relationNames(object)
  if (relations.length === 0) return
  const relName = 'GET /objects/{id}/relations/{name}'
  const rel = call('GET', `${base}/objects/${id}/relations/${pick(relations)}?${pageQuery(1, pageSize)}`, relName)
  expectEnvelope(rel, relName, 200, { list: true })
}

function readChildrenPage (base: string, pageSize: number, section: Section): void {
  const name = 'GET /objects/{id}/children'
  const page = randomPage(Math.ceil(section.childCount / pageSize))
  const r = call('GET', `${base}/objects/${section.id}/children?${pageQuery(page, pageSize)}`, name)
  expectEnvelope(r, name, 200, { list: true })
  check(r.body, { [`${name} paging adds up`]: (b) => pagingProblems(pagingOf(b), page, pageSize).length === 0 })
}
