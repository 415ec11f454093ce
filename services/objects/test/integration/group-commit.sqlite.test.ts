import { describe, expect, it } from 'vitest'
import { loadContentProtos } from '@content/protos'
import { answeredWhenDurable } from '../../src/rpc/durable-answers.js'
import { groupCommit } from '../../src/store/sqlite/wal-sync.sqlite.js'

const tick = () => new Promise((r) => setImmediate(r))

/** A flush the test finishes by hand, counting how many began. */
function manualFlush () {
  const pending: ((err?: Error) => void)[] = []
  let begun = 0
  const flush = () => new Promise<void>((resolve, reject) => { begun++; pending.push((err) => (err ? reject(err) : resolve())) })
  return { flush, begun: () => begun, finish: (err?: Error) => { for (const done of pending.splice(0)) done(err) } }
}

describe('group commit: nothing is answered before a flush begun after its commit ends', () => {
  it('with nothing committed since the last flush, sync resolves at once and flushes nothing', async () => {
    const m = manualFlush()
    const group = groupCommit(m.flush)
    await group.sync()
    expect(m.begun()).toBe(0)
    group.committed()
    const first = group.sync()
    m.finish()
    await first
    await group.sync()
    expect(m.begun()).toBe(1)
  })

  it('commits made while a flush runs share the next flush, which begins when the running one ends; commits it covers wait only for it', async () => {
    const m = manualFlush()
    const group = groupCommit(m.flush)
    const settled: string[] = []
    group.committed()
    void group.sync().then(() => settled.push('a'))
    void group.sync().then(() => settled.push('a2')) // covered by the running flush
    group.committed()
    void group.sync().then(() => settled.push('b'))
    group.committed()
    void group.sync().then(() => settled.push('c'))
    await tick()
    expect(m.begun()).toBe(1)
    m.finish()
    await tick()
    expect(settled).toEqual(['a', 'a2'])
    expect(m.begun()).toBe(2) // one flush for b and c
    m.finish()
    await tick()
    expect(settled).toEqual(['a', 'a2', 'b', 'c'])
  })

  it('a failed flush fails those waiting for it, and the next sync flushes again', async () => {
    const m = manualFlush()
    const group = groupCommit(m.flush)
    group.committed()
    const failed = group.sync()
    m.finish(new Error('EIO'))
    await expect(failed).rejects.toThrow('EIO')
    const again = group.sync()
    m.finish()
    await expect(again).resolves.toBeUndefined()
    expect(m.begun()).toBe(2)
  })

  it('a unary answer of the service waits for the store to be durable; a stream is left alone', async () => {
    const { v1 } = loadContentProtos().content
    let release = () => {}
    const store = { durable: () => new Promise<void>((r) => { release = r }) }
    const watch = () => {}
    const impl = answeredWhenDurable(v1.ObjectService.service, { GetObject: async () => 'answer', WatchChanges: watch }, store)
    expect(impl.WatchChanges).toBe(watch)
    let answered = false
    const answer = impl.GetObject().then((v) => { answered = true; return v })
    await tick()
    expect(answered).toBe(false)
    release()
    await expect(answer).resolves.toBe('answer')
  })
})
