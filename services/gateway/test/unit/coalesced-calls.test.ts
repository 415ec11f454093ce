import { status } from '@grpc/grpc-js'
import type { CallOptions } from '@content/platform'
import type { v1 } from '@content/protos'
import { describe, expect, it } from 'vitest'
import { coalescedCalls, type Coalesced } from '../../src/calls/coalesced-calls.js'
import type { Clients } from '../../src/http/context.js'
import { leavingClient } from '../support/client-gone.js'

const turn = () => new Promise((resolve) => setImmediate(resolve))

/**
 * Objects and tree clients that record each call; a batch answers every member OK with headers, after
 * `release` (or, `unimplemented`, fails as an objects service without CallBatch does).
 */
function fakeClients (unimplemented = false) {
  const unary: string[] = []
  const batches: v1.BatchedCall[][] = []
  let release = () => {}
  const held = new Promise<void>((resolve) => { release = resolve })
  const object = { id: 7, title: 't' }
  const objects = {
    GetObject: async () => { unary.push('GetObject'); return { object } },
    SaveObject: async () => { unary.push('SaveObject'); return { object, created: true } },
    CallBatch: async (req: v1.CallBatchRequest, _options: CallOptions) => {
      batches.push(req.calls ?? [])
      if (unimplemented) throw Object.assign(new Error('12 UNIMPLEMENTED: The server does not implement the method CallBatch'), { code: status.UNIMPLEMENTED })
      await held
      return {
        answers: (req.calls ?? []).map((m) => ({
          code: status.OK, message: '', reason: '', details_json: Buffer.alloc(0), headers: { 'x-change-seq': m.request_id ?? '' }, headers_sent: true,
          ...(m.save_object ? { save_object: { object, created: true } } : { get_object: { object } }),
        })),
      }
    },
  }
  const clients = { objects, tree: {}, auth: {}, poster: {} } as unknown as Clients
  return { clients, unary, batches, release }
}

const coalesce = (clients: Clients, which: Coalesced) => coalescedCalls(clients, 5_000, which)

describe('coalescedCalls: the saves of a turn', () => {
  it('when saves and reads arrive in one turn, then the saves travel as one batch of their own, and each hears its own headers', async () => {
    const f = fakeClients()
    const c = coalesce(f.clients, { reads: true, saves: true })
    const heard: Record<string, string>[] = []
    const saves = ['s1', 's2', 's3'].map((id) => c.objects.SaveObject({ body_json: '{}' }, { requestId: id, userToken: `token-${id}`, onHeaders: (h) => heard.push(h) }))
    const reads = ['r1', 'r2'].map((id) => c.objects.GetObject({ object_id: '7' }, { requestId: id }))
    await turn()
    f.release()
    await Promise.all([...saves, ...reads])
    expect(f.unary).toEqual([])
    const kinds = f.batches.map((b) => b.map((m) => (m.save_object ? 'save' : 'read')))
    expect(kinds.map((k) => k.join(' ')).sort()).toEqual(['read read', 'save save save'])
    const saveBatch = f.batches.find((b) => b[0]?.save_object)
    expect(saveBatch?.map((m) => [m.request_id, m.user_token])).toEqual([['s1', 'token-s1'], ['s2', 'token-s2'], ['s3', 'token-s3']])
    expect(heard.map((h) => h['x-change-seq'])).toEqual(['s1', 's2', 's3'])
  })

  it('when a save\'s client goes away, then the save stays in its batch and runs on, as its own call would', async () => {
    const f = fakeClients()
    const c = coalesce(f.clients, { reads: true, saves: true })
    const gone = leavingClient()
    const first = c.objects.SaveObject({ body_json: '{}' }, { clientGone: gone })
    const second = c.objects.SaveObject({ body_json: '{}' }, { clientGone: gone })
    await turn()
    gone.leave()
    f.release()
    await expect(first).resolves.toEqual({ object: { id: 7, title: 't' }, created: true })
    await expect(second).resolves.toEqual({ object: { id: 7, title: 't' }, created: true })
  })

  it('when saves are not coalesced, then each save is its own call, and reads are still batched', async () => {
    const f = fakeClients()
    const c = coalesce(f.clients, { reads: true, saves: false })
    f.release()
    await Promise.all([c.objects.SaveObject({}), c.objects.SaveObject({}), c.objects.GetObject({ object_id: '7' }), c.objects.GetObject({ object_id: '7' })])
    expect(f.unary).toEqual(['SaveObject', 'SaveObject'])
    expect(f.batches.map((b) => b.length)).toEqual([2])
  })

  it('when a save is alone in its turn, then it is its own call and waits for no one', async () => {
    const f = fakeClients()
    const c = coalesce(f.clients, { reads: false, saves: true })
    await c.objects.SaveObject({})
    await Promise.all([c.objects.GetObject({ object_id: '7' }), c.objects.GetObject({ object_id: '7' })])
    expect(f.unary).toEqual(['SaveObject', 'GetObject', 'GetObject'])
    expect(f.batches).toEqual([])
  })

  it('when the objects service knows no CallBatch (the release before, during a rolling update), then each member goes as its own call', async () => {
    const f = fakeClients(true)
    const c = coalesce(f.clients, { reads: true, saves: true })
    const answers = await Promise.all([c.objects.SaveObject({}), c.objects.SaveObject({}), c.objects.GetObject({ object_id: '7' }), c.objects.GetObject({ object_id: '7' })])
    expect(answers).toHaveLength(4)
    expect(f.batches).toHaveLength(2)
    expect(f.unary.sort()).toEqual(['GetObject', 'GetObject', 'SaveObject', 'SaveObject'])
  })
})

describe('coalescedCalls: answers by reference', () => {
  /** An objects client whose CallBatch answers `answers` as they are, recording the requests. */
  function answering (answers: Record<string, unknown>[]) {
    const requests: v1.CallBatchRequest[] = []
    const base = { code: status.OK, message: '', reason: '', details_json: Buffer.alloc(0), headers: {}, headers_sent: false, same_as: 0 }
    const objects = {
      GetObject: async () => { throw new Error('no unary call expected') },
      CallBatch: async (req: v1.CallBatchRequest) => {
        requests.push(req)
        return { answers: answers.map((a) => ({ ...base, ...a })) }
      },
    }
    return { clients: { objects, tree: {}, auth: {}, poster: {} } as unknown as Clients, requests }
  }

  it('when a member\'s answer names an earlier one (same_as), then both get that answer, decoded once and shared, and each hears its headers', async () => {
    const object = { id: 7, title: 't' }
    const f = answering([{ get_object: { object }, headers: { 'x-depends-on': '7' }, headers_sent: true }, { same_as: 1 }])
    const c = coalesce(f.clients, { reads: true, saves: false })
    const heard: string[] = []
    const listen = { onHeaders: (h: Record<string, string>) => heard.push(h['x-depends-on'] ?? '') }
    const [first, second] = await Promise.all([c.objects.GetObject({ object_id: '7' }, listen), c.objects.GetObject({ object_id: '7' }, listen)])
    expect(f.requests.map((r) => r.refers_same)).toEqual([true])
    expect(first).toEqual({ object })
    expect(second).toBe(first)
    expect(heard).toEqual(['7', '7'])
  })

  it('when a reference names no earlier answer of its own (itself, a reference, none), then that member alone fails INTERNAL', async () => {
    const object = { id: 7, title: 't' }
    const f = answering([{ get_object: { object } }, { same_as: 2 }, { same_as: 2 }, { same_as: 9 }, { same_as: 1 }])
    const c = coalesce(f.clients, { reads: true, saves: false })
    const outcomes = await Promise.allSettled([0, 1, 2, 3, 4].map(() => c.objects.GetObject({ object_id: '7' })))
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? 'ok' : (o.reason as { code?: number }).code))).toEqual(['ok', status.INTERNAL, status.INTERNAL, status.INTERNAL, 'ok'])
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toContain('refers to no earlier answer')
  })

  it('when a reference names an earlier member of another kind (a list of objects for a tree list), then that member alone fails INTERNAL', async () => {
    const list = { objects: [], paging: null, included: [] }
    const f = answering([{ list }, { same_as: 1 }, { same_as: 1 }])
    const c = coalesce(f.clients, { reads: true, saves: false })
    const outcomes = await Promise.allSettled([c.objects.ListObjects({}), c.tree.ListTree({ object_id: '1' }), c.objects.ListObjects({})])
    expect(f.requests.map((r) => r.calls?.length)).toEqual([3])
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? 'ok' : (o.reason as { code?: number }).code))).toEqual(['ok', status.INTERNAL, 'ok'])
  })
})
