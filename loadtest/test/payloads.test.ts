import { describe, expect, it } from 'vitest'
import { childPriorityInput, documentInput, loginInput, makeRunId, refreshInput, relationItems, sectionInput } from '../lib/payloads.ts'

describe('payload builders', () => {
  it('makeRunId is short, lower-case and differs between runs', () => {
    const a = makeRunId(1_700_000_000_000, () => 0.1)
    expect(a).toMatch(/^[0-9a-z]{8,14}$/)
    expect(makeRunId(1_700_000_000_000, () => 0.2)).not.toBe(a)
    expect(makeRunId(1_700_000_000_001, () => 0.1)).not.toBe(a)
  })

  it('documentInput creates a document under the given parent, titled by run, VU and iteration', () => {
    const body = documentInput({ runId: 'r1', vu: 3, iteration: 7, parentId: 42 })
    expect(body.data).toMatchObject({ object_type: 'document', title: 'Load test r1 vu3 it7', parents: [42] })
    // Server-owned fields must never be sent (decisions §4: sending one is a 400).
    for (const field of ['id', 'created', 'modified', 'status', 'object_type_id']) expect(body.data).not.toHaveProperty(field)
  })

  it('sectionInput names the section after the run so teardown and humans find it', () => {
    expect(sectionInput('r1')).toEqual({ data: { object_type: 'section', title: 'Load test r1', nickname: 'loadtest-r1', parents: [1] } })
  })

  it('relationItems builds an array of items, params only when given', () => {
    expect(relationItems([5, 6])).toEqual({ data: [{ related_id: 5 }, { related_id: 6 }] })
    expect(relationItems([5], { a: 1 })).toEqual({ data: [{ related_id: 5, params: { a: 1 } }] })
  })

  it('childPriorityInput requires a positive integer', () => {
    expect(childPriorityInput(1)).toEqual({ data: { priority: 1 } })
    expect(() => childPriorityInput(0)).toThrow(RangeError)
    expect(() => childPriorityInput(1.5)).toThrow(RangeError)
  })

  it('auth bodies follow spec 4.2', () => {
    expect(loginInput('admin', 'pw')).toEqual({ username: 'admin', password: 'pw', grant_type: 'password' })
    expect(refreshInput('tok')).toEqual({ grant_type: 'refresh_token', refresh_token: 'tok' })
  })
})
