import { EventEmitter } from 'node:events'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
// @ts-expect-error the launcher is plain JavaScript run by node directly
import { createSupervisor, restartDelay } from '../scripts/launcher/supervisor.mjs'
import { must } from './support/must.js'

/** A stand-in child process: exits when told, or when killed. */
class FakeChild extends EventEmitter {
  exitCode: number | null = null
  signalCode: string | null = null
  killed: string[] = []
  constructor (readonly pid: number) { super() }
  exit (code: number | null, signal: string | null = null) {
    this.exitCode = code
    this.signalCode = signal
    this.emit('exit', code, signal)
  }

  kill (signal: string) {
    this.killed.push(signal)
    setImmediate(() => this.exit(null, signal))
  }
}

let spawned: FakeChild[]
let reports: string[]
let fatal: [string, number | null][]
const build = () => createSupervisor({
  spawn: () => {
    const child = new FakeChild(spawned.length + 1)
    spawned.push(child)
    return child
  },
  report: (line: string) => reports.push(line),
  onFatal: (name: string, code: number | null) => fatal.push([name, code]),
  timing: { initialMs: 100, maxMs: 1_000, stableMs: 5_000, stopTimeoutMs: 2_000 },
})

beforeEach(() => {
  vi.useFakeTimers()
  spawned = []
  reports = []
  fatal = []
})
afterEach(() => { vi.useRealTimers() })

describe('restart delays', () => {
  it('double from the first and stop growing at the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => restartDelay(n, { initialMs: 250, maxMs: 2_000 }))).toEqual([250, 500, 1_000, 2_000, 2_000, 2_000, 2_000])
  })
})

describe('the supervisor', () => {
  it('restarts a ready service that crashes, after a pause that grows while it keeps crashing', async () => {
    const supervisor = build()
    supervisor.launch('objects')
    supervisor.ready('objects')
    const pauses: number[] = []
    for (let crash = 0; crash < 5; crash++) {
      const before = spawned.length
      must(spawned.at(-1)).exit(null, 'SIGKILL')
      const crashedAt = Date.now()
      while (spawned.length === before) await vi.advanceTimersByTimeAsync(10)
      pauses.push(Date.now() - crashedAt)
    }
    expect(pauses).toEqual([100, 200, 400, 800, 1_000])
    expect(reports[0]).toMatch(/objects exited \(SIGKILL\); restarting in 100 ms/)
    expect(fatal).toEqual([])
  })

  it('starts again at the first pause once a service ran longer than the stable time', async () => {
    const supervisor = build()
    supervisor.launch('auth')
    supervisor.ready('auth')
    must(spawned[0]).exit(1)
    await vi.advanceTimersByTimeAsync(100)
    must(spawned[1]).exit(1)
    await vi.advanceTimersByTimeAsync(200)
    expect(spawned).toHaveLength(3)
    await vi.advanceTimersByTimeAsync(6_000)
    must(spawned[2]).exit(1)
    expect(reports.at(-1)).toMatch(/restarting in 100 ms/)
  })

  it('a service that fails before it was ever ready is fatal and not restarted', async () => {
    const supervisor = build()
    supervisor.launch('gateway')
    must(spawned[0]).exit(78)
    await vi.advanceTimersByTimeAsync(5_000)
    expect(fatal).toEqual([['gateway', 78]])
    expect(spawned).toHaveLength(1)
  })

  it('stop ends every running child in order, cancels a pending restart and launches nothing after', async () => {
    const supervisor = build()
    for (const name of ['objects', 'auth', 'gateway']) {
      supervisor.launch(name)
      supervisor.ready(name)
    }
    must(spawned[1]).exit(1) // auth crashed: a restart is pending
    const stopped = supervisor.stop(['gateway', 'objects', 'auth'])
    await vi.advanceTimersByTimeAsync(5_000)
    await stopped
    expect(must(spawned[2]).killed).toEqual(['SIGTERM'])
    expect(must(spawned[0]).killed).toEqual(['SIGTERM'])
    expect(spawned).toHaveLength(3)
    supervisor.launch('poster')
    expect(spawned).toHaveLength(3)
    expect(supervisor.stopping).toBe(true)
  })

  it('a child that ignores SIGTERM gets SIGKILL after the stop timeout', async () => {
    const supervisor = build()
    supervisor.launch('objects')
    const stubborn = must(spawned[0])
    stubborn.kill = (signal: string) => {
      stubborn.killed.push(signal)
      if (signal === 'SIGKILL') setImmediate(() => stubborn.exit(null, 'SIGKILL'))
    }
    const stopped = supervisor.stop([])
    await vi.advanceTimersByTimeAsync(2_100)
    await stopped
    expect(stubborn.killed).toEqual(['SIGTERM', 'SIGKILL'])
  })
})
