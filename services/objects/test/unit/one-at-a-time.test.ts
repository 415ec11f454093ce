import { describe, expect, it } from 'vitest'
import { oneAtATime } from '../../src/rpc/one-at-a-time.js'

const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('oneAtATime', () => {
  it('when work comes while other work runs, then it begins only once that has settled, in the order given', async () => {
    const inTurn = oneAtATime()
    const log: string[] = []
    const releases: (() => void)[] = []
    const work = (name: string) => () => new Promise<string>((resolve) => {
      log.push(`begin ${name}`)
      releases.push(() => { log.push(`end ${name}`); resolve(name) })
    })
    const runs = [inTurn(work('a')), inTurn(work('b')), inTurn(work('c'))]
    for (let i = 0; i < 5; i++) await turn()
    expect(log).toEqual(['begin a'])
    for (let n = 0; n < 3; n++) {
      releases[n]?.()
      for (let i = 0; i < 5; i++) await turn()
    }
    expect(log).toEqual(['begin a', 'end a', 'begin b', 'end b', 'begin c', 'end c'])
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c'])
  })

  it('when work settles, then what it scheduled for the next turn (its answer\'s write) runs before the next work begins', async () => {
    const inTurn = oneAtATime()
    const log: string[] = []
    void inTurn(async () => {
      log.push('first')
      setImmediate(() => log.push('its reply written'))
    })
    await inTurn(async () => { log.push('second') })
    expect(log).toEqual(['first', 'its reply written', 'second'])
  })

  it('when work fails, then its caller gets the failure and the next work still runs', async () => {
    const inTurn = oneAtATime()
    const failed = inTurn(() => Promise.reject(new Error('no')))
    const next = inTurn(() => Promise.resolve('yes'))
    await expect(failed).rejects.toThrow('no')
    expect(await next).toBe('yes')
  })
})
