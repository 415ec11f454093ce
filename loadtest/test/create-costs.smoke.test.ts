/**
 * `autocannon/create-costs.mjs` runs end to end on a few creates: it makes a database of its own, imports a
 * small bench store, creates documents under one of its sections as the save composes them and drops the
 * database. It measures nothing here; it proves the tool still runs and that every create answered its document.
 */
import { describe, expect, it } from 'vitest'
import { runScript } from './support/run-script.js'

describe('create-costs.mjs', () => {
  it('when it creates a few documents in two rounds, then each round prints its rate and the CPU of both sides', async () => {
    const { code, out } = await runScript('create-costs.mjs', { CREATE_COUNT: '30', CREATE_CONCURRENCY: '3', CREATE_ROUNDS: '2', CREATE_STORE_OBJECTS: '200' })
    expect(code, out).toBe(0)
    expect(out).toMatch(/^30 creates a round, 3 at a time, on a store of 200 objects/m)
    const rounds = [...out.matchAll(/^round (\d): (\d+) creates\/s, CPU a create: this process (\d+\.\d{3}) ms, postgres (\d+\.\d{3}) ms$/gm)]
    expect(rounds.map((r) => r[1]), out).toEqual(['1', '2'])
    for (const r of rounds) expect(Number(r[2])).toBeGreaterThan(0)
  }, 120_000)
})
