import { describe, expect, it } from 'vitest'
import { checkIncludeBudget, listSpecOf, parameterOf } from '../../src/core/list-query.js'
import type { ReadDeps } from '../../src/core/read-context.js'
import { withDependencies, type HeaderSink } from '../../src/rpc/read-deps.js'

const refusal = (run: () => unknown): unknown => {
  try { run() } catch (err) { return err }
  return null
}

describe('the query the objects service receives (decisions §15)', () => {
  it('takes integer bounds of any sign in the id column\'s range as numbers', () => {
    const spec = listSpecOf({ conditions: [{ field: 'id', op: 'gt', values: ['0'] }, { field: 'id', op: 'between', values: ['-5', '2147483647'] }] })
    expect(spec.conditions.map((c) => c.values)).toEqual([[0], [-5, 2147483647]])
  })

  it.each([
    [{ field: 'created', op: 'gt', values: ['86401796118609120'] }, 'filter[created][gt]'],
    [{ field: 'created', op: 'eq', values: ['x'] }, 'filter[created]'],
    [{ field: 'id', op: 'lt', values: ['9007199254740992'], group: 3 }, 'filter[or][3][id][lt]'],
    [{ field: 'tags', op: 'in', values: ['a', ''] }, 'filter[tags][in]'],
  ])('refuses a condition that does not check, naming the parameter it came from: %j', (condition, parameter) => {
    expect(refusal(() => listSpecOf({ conditions: [condition] }))).toMatchObject({ reason: 'INVALID_PARAMETER', details: { parameter } })
    expect(parameterOf({ group: null, ...condition })).toBe(parameter)
  })

  it('refuses a page past the include budget naming include_limit', () => {
    const spec = listSpecOf({ include: ['seealso.seealso'], include_limit: 50 })
    expect(refusal(() => checkIncludeBudget(spec, 100))).toMatchObject({ reason: 'INVALID_PARAMETER', details: { parameter: 'include_limit' } })
    expect(refusal(() => checkIncludeBudget(spec, 2))).toBeNull()
    expect(refusal(() => checkIncludeBudget(spec, 2, 4_999))).toMatchObject({ details: { parameter: 'include_limit' } })
    expect(refusal(() => checkIncludeBudget(listSpecOf({}), 100, 1))).toBeNull()
  })
})

describe('a read whose caller gave up', () => {
  const deps = { store: {}, now: Date.now, visibility: { visibleStatuses: ['on'], windowFilter: true } } as unknown as ReadDeps
  const sink = (state: { deadline?: number, cancelled?: boolean }): HeaderSink => ({
    sendMetadata: () => {}, getDeadline: () => state.deadline ?? Infinity, get cancelled () { return state.cancelled === true },
  })

  it('is not serialized when the deadline passed or the call was cancelled during the read', async () => {
    const late = { deadline: Infinity }
    await expect(withDependencies(sink(late), deps, async () => { late.deadline = Date.now() - 1; return 'answer' })).rejects.toMatchObject({ reason: 'BACKEND_TIMEOUT', code: 'DEADLINE_EXCEEDED' })
    const cancelled = { cancelled: false }
    await expect(withDependencies(sink(cancelled), deps, async () => { cancelled.cancelled = true; return 'answer' })).rejects.toMatchObject({ reason: 'REQUEST_CANCELLED', code: 'CANCELLED' })
    expect(await withDependencies(sink({ deadline: Date.now() + 60_000 }), deps, async () => 'answer')).toBe('answer')
    // a sink that says nothing of its caller (an internal read) runs to the end
    expect(await withDependencies({ sendMetadata: () => {} }, deps, async () => 'answer')).toBe('answer')
  })

  it('hands the read a check that throws once the caller is gone', async () => {
    const state = { deadline: Infinity }
    await withDependencies(sink(state), deps, async (d) => {
      expect(() => d.stillWanted?.()).not.toThrow()
      state.deadline = new Date(Date.now() - 1).getTime()
      expect(() => d.stillWanted?.()).toThrow(/deadline passed/)
      state.deadline = Infinity
      return null
    })
  })
})
