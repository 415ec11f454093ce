/**
 * Writes as an administrator, shared by write-objects.ts and mixed.ts: create a document under a run-owned
 * section, relate it, move it to the top of the section, delete it. setup() creates the section;
 * teardown() removes what is left under it and the section.
 */
import { check } from 'k6'
import { listedObjects, objectOf } from '../../lib/envelope.ts'
import { pageQuery } from '../../lib/paging.ts'
import { childPriorityInput, documentInput, makeRunId, relationItems, sectionInput } from '../../lib/payloads.ts'
import { needsRenewal, type Session } from '../../lib/session.ts'
import type { LatencyBudget } from './presets.ts'
import { call, expectEnvelope, login } from './http.ts'

export interface WriteData { runId: string, sectionId: number }
export interface Writer { base: string, username: string, password: string }

export const WRITE_BUDGETS: { overall: LatencyBudget, perName: Record<string, LatencyBudget> } = {
  overall: { p95: 500, p99: 1000 },
  perName: {
    'POST /objects': { p95: 500, p99: 1000 },
    'DELETE /objects/{id}': { p95: 400, p99: 800 },
  },
}

/** Per-VU session (module state is per VU in k6), renewed before the access token expires. */
let session: Session | undefined
function token (w: Writer): string {
  if (session === undefined || needsRenewal(session, Date.now())) session = login(w.base, w.username, w.password)
  return session.accessToken
}
let previousDocument: number | undefined

/** setup(): the section `loadtest-<runId>` under the publication. */
export function createRunSection (w: Writer): WriteData {
  const runId = makeRunId()
  const r = call('POST', `${w.base}/objects`, 'POST /objects', { token: token(w), body: sectionInput(runId) })
  const section = objectOf(r.body)
  if (r.res.status !== 201 || section === undefined) throw new Error(`creating the run's section answered ${r.res.status}`)
  return { runId, sectionId: section.id }
}

/** One write iteration; every other document is kept one iteration, so the next relates to a live object. */
export function writeIteration (w: Writer, data: WriteData): void {
  const created = call('POST', `${w.base}/objects`, 'POST /objects', {
    token: token(w),
    body: documentInput({ runId: data.runId, vu: __VU, iteration: __ITER, parentId: data.sectionId }),
  })
  expectEnvelope(created, 'POST /objects', 201, { api: 'objects' })
  const id = objectOf(created.body)?.id
  if (id === undefined) return

  const relatedId = previousDocument ?? data.sectionId
  const related = call('POST', `${w.base}/objects/${id}/relations/seealso`, 'POST /objects/{id}/relations/{name}', {
    token: token(w), body: relationItems([relatedId], { source: 'k6' }),
  })
  check(related, { 'relate → 201': (r) => r.res.status === 201 })

  const moved = call('PUT', `${w.base}/objects/${data.sectionId}/children/${id}`, 'PUT /objects/{id}/children/{child_id}', {
    token: token(w), body: childPriorityInput(1),
  })
  expectEnvelope(moved, 'PUT /objects/{id}/children/{child_id}', 200)

  if (previousDocument !== undefined) deleteObject(w, previousDocument)
  if (__ITER % 2 === 0) {
    previousDocument = id
  } else {
    deleteObject(w, id)
    previousDocument = undefined
  }
}

function deleteObject (w: Writer, id: number): void {
  const r = call('DELETE', `${w.base}/objects/${id}`, 'DELETE /objects/{id}', { token: token(w) })
  check(r, { 'DELETE /objects/{id} → 204': (x) => x.res.status === 204 })
}

/** teardown(): the documents left under the section (interrupted iterations), then the section. */
export function removeRunSection (w: Writer, data: WriteData): void {
  session = undefined
  for (let guard = 0; guard < 100; guard++) {
    const r = call('GET', `${w.base}/objects/${data.sectionId}/children?${pageQuery(1, 100)}`, 'GET /objects/{id}/children', { token: token(w) })
    const children = listedObjects(r.body)
    if (children.length === 0) break
    for (const child of children) deleteObject(w, child.id)
  }
  deleteObject(w, data.sectionId)
}
