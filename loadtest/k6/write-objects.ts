/**
 * Writes as an administrator: create a document under a run-owned section, relate it, move it to
 * the top of the section, delete it. setup() creates the section; teardown() removes what is left.
 *
 *   k6 run -e BASE_URL=... -e ADMIN_PASSWORD=... -e PRESET=smoke loadtest/k6/write-objects.ts
 */
import { check, sleep } from 'k6'
import type { Options } from 'k6/options'
import { credentialsOf, readConfig } from '../lib/config.ts'
import { listedObjects, objectOf } from '../lib/envelope.ts'
import { pageQuery } from '../lib/paging.ts'
import { childPriorityInput, documentInput, makeRunId, relationItems, sectionInput } from '../lib/payloads.ts'
import { needsRenewal, type Session } from '../lib/session.ts'
import { call, expectEnvelope, healthGate, login } from './lib/http.ts'
import { scenarioFor, thresholdsFor } from './lib/presets.ts'

const config = readConfig(__ENV, true)
const BASE = config.baseUrl

export const options: Options = {
  scenarios: { write_objects: scenarioFor(config.preset, config.vus) },
  thresholds: thresholdsFor({ p95: 500, p99: 1000 }, {
    'POST /objects': { p95: 500, p99: 1000 },
    'DELETE /objects/{id}': { p95: 400, p99: 800 },
  }),
}

interface WriteData { runId: string, sectionId: number }

/** Per-VU session (module state is per VU in k6), renewed before the access token expires. */
let session: Session | undefined
function token (): string {
  if (session === undefined || needsRenewal(session, Date.now())) session = login(BASE, ...credentialsOf(config))
  return session.accessToken
}
let previousDocument: number | undefined

export function setup (): WriteData {
  healthGate(BASE)
  const runId = makeRunId()
  const r = call('POST', `${BASE}/objects`, 'POST /objects', { token: token(), body: sectionInput(runId) })
  const section = objectOf(r.body)
  if (r.res.status !== 201 || section === undefined) throw new Error(`creating the run's section answered ${r.res.status}`)
  return { runId, sectionId: section.id }
}

export default function (data: WriteData): void {
  const created = call('POST', `${BASE}/objects`, 'POST /objects', {
    token: token(),
    body: documentInput({ runId: data.runId, vu: __VU, iteration: __ITER, parentId: data.sectionId }),
  })
  expectEnvelope(created, 'POST /objects', 201, { api: 'objects' })
  const id = objectOf(created.body)?.id
  if (id === undefined) return

  const relatedId = previousDocument ?? data.sectionId
  const related = call('POST', `${BASE}/objects/${id}/relations/seealso`, 'POST /objects/{id}/relations/{name}', {
    token: token(), body: relationItems([relatedId], { source: 'k6' }),
  })
  check(related, { 'relate → 201': (r) => r.res.status === 201 })

  const moved = call('PUT', `${BASE}/objects/${data.sectionId}/children/${id}`, 'PUT /objects/{id}/children/{child_id}', {
    token: token(), body: childPriorityInput(1),
  })
  expectEnvelope(moved, 'PUT /objects/{id}/children/{child_id}', 200)

  if (previousDocument !== undefined) deleteObject(previousDocument)
  if (__ITER % 2 === 0) {
    previousDocument = id // kept one iteration, so the next document relates to a live object
  } else {
    deleteObject(id)
    previousDocument = undefined
  }
  sleep(config.thinkTimeSeconds)
}

function deleteObject (id: number): void {
  const r = call('DELETE', `${BASE}/objects/${id}`, 'DELETE /objects/{id}', { token: token() })
  check(r, { 'DELETE /objects/{id} → 204': (x) => x.res.status === 204 })
}

/** Removes the documents left under the section (interrupted iterations), then the section. */
export function teardown (data: WriteData): void {
  session = undefined
  for (let guard = 0; guard < 100; guard++) {
    const r = call('GET', `${BASE}/objects/${data.sectionId}/children?${pageQuery(1, 100)}`, 'GET /objects/{id}/children', { token: token() })
    const children = listedObjects(r.body)
    if (children.length === 0) break
    for (const child of children) deleteObject(child.id)
  }
  deleteObject(data.sectionId)
}
