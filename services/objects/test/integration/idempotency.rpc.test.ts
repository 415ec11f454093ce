import { RESPONSE_HEADERS } from '@content/protos'
import { describe, expect, it } from 'vitest'
import { IDEMPOTENCY_WINDOW_MS } from '../../src/core/idempotency.js'
import { NOW } from './site.fixture.js'
import { editor, failure, harnessTest, WRITABLE } from './harness.js'
import { must } from '../support/must.js'
import { bodyOf } from '../support/write-body.js'

const otherEditor = { user_id: 3, groups: ['editor'] }
const HASH = 'a'.repeat(64)
const OTHER_HASH = 'b'.repeat(64)

describe('idempotency keys of POST writes over gRPC', () => {
  const { h, ids } = harnessTest({ now: NOW })

  /** A call's answer and whether its response metadata said it is a replay. */
  const withReplay = async <T>(call: (options: { onHeaders: (headers: Record<string, string>) => void }) => Promise<T>) => {
    let replayed = false
    const answer = await call({ onHeaders: (headers) => { replayed = headers[RESPONSE_HEADERS.idempotentReplayed] === 'true' } })
    return { answer, replayed }
  }
  const create = (title: string, key: string, hash = HASH, caller = editor) => withReplay((options) => h.objects.SaveObject({
    caller, body_json: bodyOf({ object_type: 'document', title, parents: [ids.news] }), writable_types: WRITABLE, idempotency_key: key, request_hash: hash,
  }, options))
  const documentsTitled = async (title: string) =>
    (await h.tree.ListTree({ caller: editor, object_id: 'news', kind: 'CHILDREN', page: { page: 1, page_size: 100 } })).objects.filter((o) => o.title === title)

  describe('SaveObject', () => {
    it('when the same key and request come twice, then one object is created and the first answer is replayed', async () => {
      const first = await create('Once', 'key-1')
      const again = await create('Once', 'key-1')
      expect(first.replayed).toBe(false)
      expect(first.answer.created).toBe(true)
      expect(again).toEqual({ answer: first.answer, replayed: true })
      expect(await documentsTitled('Once')).toHaveLength(1)
    })

    it('when the same key comes with another request, then IDEMPOTENCY_KEY_REUSED and nothing is written', async () => {
      await create('Once', 'key-1')
      expect(await failure(create('Twice', 'key-1', OTHER_HASH))).toMatchObject({ reason: 'IDEMPOTENCY_KEY_REUSED', details: { parameter: 'Idempotency-Key' } })
      expect(await documentsTitled('Twice')).toHaveLength(0)
    })

    it('when another user sends the same key, then it is a key of their own', async () => {
      const mine = await create('Mine', 'shared-key')
      const theirs = await create('Theirs', 'shared-key', OTHER_HASH, otherEditor)
      expect(theirs.replayed).toBe(false)
      expect(must(theirs.answer.object).id).not.toBe(must(mine.answer.object).id)
    })

    it('when an update is replayed, then it answers the object as first saved and is not applied again', async () => {
      const update = (title: string) => withReplay((options) => h.objects.SaveObject({
        caller: editor, body_json: bodyOf({ id: ids.doc1, title }), writable_types: WRITABLE, idempotency_key: 'upd', request_hash: HASH,
      }, options))
      const first = await update('Updated once')
      await h.objects.SaveObject({ caller: editor, body_json: bodyOf({ id: ids.doc1, title: 'Changed since' }), writable_types: WRITABLE })
      const again = await update('Updated once')
      expect(again).toEqual({ answer: first.answer, replayed: true })
      expect(again.answer.created).toBe(false)
      expect(must((await h.objects.GetObject({ caller: editor, object_id: String(ids.doc1) })).object).title).toBe('Changed since')
    })

    it('when a write is refused, then its key stays unused', async () => {
      const bad = (data: object) => h.objects.SaveObject({ caller: editor, body_json: bodyOf(data), writable_types: WRITABLE, idempotency_key: 'retry-me', request_hash: HASH })
      expect(await failure(bad({ object_type: 'document', title: 'Fixed', parents: [99999] }))).toMatchObject({ httpStatus: 400 })
      expect((await create('Fixed', 'retry-me')).replayed).toBe(false)
    })

    it('when 24 hours have passed, then the key is free again, before and after pruning', async () => {
      const first = await create('Daily', 'day-key')
      h.clock.now += IDEMPOTENCY_WINDOW_MS - 1
      expect((await create('Daily', 'day-key')).replayed).toBe(true)
      h.clock.now += 1
      const second = await create('Daily', 'day-key')
      expect(second.replayed).toBe(false)
      expect(must(second.answer.object).id).not.toBe(must(first.answer.object).id)
      // the key, recorded again, is live and answers its new first answer
      expect(must((await create('Daily', 'day-key')).answer.object).id).toBe(must(second.answer.object).id)
      expect(await failure(create('Other', 'day-key', OTHER_HASH))).toMatchObject({ reason: 'IDEMPOTENCY_KEY_REUSED' })
      h.clock.now += IDEMPOTENCY_WINDOW_MS
      expect(await h.store.idempotency.prune(h.clock.now)).toBe(1)
      expect((await create('Other', 'day-key', OTHER_HASH)).replayed).toBe(false)
    })

    it('when two identical requests with one key race, then exactly one object is made and both get the same answer', async () => {
      // both look the key up before either writes: the loser's write meets the winner's key
      const get = h.store.idempotency.get
      let arrived = 0
      let bothArrived: () => void = () => {}
      const barrier = new Promise<void>((resolve) => { bothArrived = resolve })
      h.store.idempotency.get = async (...args) => {
        if (++arrived === 2) bothArrived()
        if (arrived <= 2) await barrier
        return get(...args)
      }
      const [a, b] = await Promise.all([create('Raced', 'race'), create('Raced', 'race')])
      h.store.idempotency.get = get
      expect(arrived).toBe(3)
      expect(a.answer).toEqual(b.answer)
      expect([a.replayed, b.replayed].sort()).toEqual([false, true])
      expect(await documentsTitled('Raced')).toHaveLength(1)
    })

    it('when the answer was not stored (a crash after the commit), then the replay rebuilds it from the recorded outcome', async () => {
      const respond = h.store.idempotency.respond
      h.store.idempotency.respond = async () => { throw new Error('crashed before storing the answer') }
      const first = await create('Rebuilt', 'crash')
      h.store.idempotency.respond = respond
      const again = await create('Rebuilt', 'crash')
      expect(again).toEqual({ answer: first.answer, replayed: true })
    })
  })

  describe('SaveRelations and SaveChildren', () => {
    it('when a relation write is repeated with its key, then the first answer comes back and nothing is saved again', async () => {
      const relate = (priority: number, hash = HASH) => withReplay((options) => h.objects.SaveRelations({
        caller: editor, object_id: String(ids.doc2), name: 'attach', body_json: bodyOf([{ related_id: ids.img2, priority }]), idempotency_key: 'rel', request_hash: hash,
      }, options))
      const first = await relate(4)
      expect(first.answer.items).toEqual([{ related_id: ids.img2, priority: 4, params_json: '', created: true }])
      const again = await relate(4)
      expect(again).toEqual({ answer: first.answer, replayed: true })
      expect(await failure(relate(5, OTHER_HASH))).toMatchObject({ reason: 'IDEMPOTENCY_KEY_REUSED' })
      expect((await h.objects.GetRelation({ caller: editor, object_id: String(ids.doc2), name: 'attach', related_id: ids.img2 })).priority).toBe(4)
    })

    it('when a children write is repeated with its key, then the first answer comes back, created flags included', async () => {
      const place = () => withReplay((options) => h.tree.SaveChildren({
        caller: editor, object_id: 'about', body_json: bodyOf([{ child_id: ids.doc2 }]), idempotency_key: 'kids', request_hash: HASH,
      }, options))
      const first = await place()
      expect(first.answer.items).toEqual([{ child_id: ids.doc2, priority: expect.any(Number), created: true }])
      const again = await place()
      expect(again).toEqual({ answer: first.answer, replayed: true })
      // without a key the same write is a plain second write: the child is already there
      const plain = await h.tree.SaveChildren({ caller: editor, object_id: 'about', body_json: bodyOf([{ child_id: ids.doc2 }]) })
      expect(must(plain.items[0]).created).toBe(false)
    })

    it('when keys of different endpoints meet, then the scope is the user and the key (the request hash tells them apart)', async () => {
      await create('Scoped', 'one-key')
      const children = h.tree.SaveChildren({ caller: editor, object_id: 'about', body_json: bodyOf([{ child_id: ids.doc2 }]), idempotency_key: 'one-key', request_hash: OTHER_HASH })
      expect(await failure(children)).toMatchObject({ reason: 'IDEMPOTENCY_KEY_REUSED' })
    })
  })
})
