import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, beforeEach } from 'vitest'
import { startFakeBackends, type FakeBackends } from './fake-backends.js'
import { buildTestApp, type TestAppOptions } from './test-app.js'

/** A gateway integration test file's set-up: the fake backends and the gateway over them. */
export interface GatewayTest {
  /** the fake backends, with the calls they saw since the test began */
  readonly backends: FakeBackends
  /** the gateway over them, built with the file's options (none when they were null) */
  readonly app: FastifyInstance
  /** another gateway over the same backends, closed with the rest */
  build(options?: TestAppOptions): Promise<FastifyInstance>
  /** closes `app` with the rest (a gateway made otherwise: lane-app.ts) */
  closing<T extends FastifyInstance>(app: T): T
}

/**
 * As fastify's demo's `build(t)`: registers the file's hooks — the fake backends and the gateway started
 * before its tests, every gateway it made and the backends closed after them, the backends' calls
 * cleared before each test — and answers them once started. `options` null: the backends only.
 */
export function gatewayTest (options: TestAppOptions | null = {}): GatewayTest {
  let backends: FakeBackends | undefined
  let app: FastifyInstance | undefined
  const opened: FastifyInstance[] = []
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is there once the file's beforeAll has run`)
    return value
  }
  const test: GatewayTest = {
    get backends () { return started(backends, 'the fake backends') },
    get app () { return started(app, 'the gateway') },
    build: async (more = {}) => test.closing(await buildTestApp(test.backends, more)),
    closing (made) {
      opened.push(made)
      return made
    },
  }
  beforeAll(async () => {
    backends = await startFakeBackends()
    if (options !== null) app = await test.build(options)
  })
  afterAll(async () => {
    for (const made of opened.reverse()) await made.close()
    await backends?.close()
  })
  beforeEach(() => { if (backends) backends.calls.length = 0 })
  return test
}
