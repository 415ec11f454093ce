import { AsyncLocalStorage } from 'node:async_hooks'
import { ROOT_CONTEXT, context, trace, type Context, type ContextManager, type Span } from '@opentelemetry/api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nameActiveSpan } from '../../src/metrics/span.js'

/** What the SDK's context manager does, enough to make a span active. */
class StorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>()
  active (): Context { return this.storage.getStore() ?? ROOT_CONTEXT }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>> (ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.storage.run(ctx, () => fn.call(thisArg, ...args))
  }

  bind<T> (_ctx: Context, target: T): T { return target }
  enable (): this { return this }
  disable (): this { return this }
}

function fakeSpan () {
  const seen = { name: 'GET', attributes: {} as Record<string, unknown> }
  const span = {
    updateName: (name: string) => { seen.name = name; return span },
    setAttribute: (key: string, value: unknown) => { seen.attributes[key] = value; return span },
  }
  return { span: span as unknown as Span, seen }
}

beforeAll(() => { context.setGlobalContextManager(new StorageContextManager()) })
afterAll(() => { context.disable() })

describe('nameActiveSpan', () => {
  it('when a span is active, then it is named after the method and route template and carries http.route', async () => {
    const { span, seen } = fakeSpan()
    await context.with(trace.setSpan(context.active(), span), async () => {
      await Promise.resolve()
      nameActiveSpan('GET', '/objects/{object_id}')
    })
    expect(seen).toEqual({ name: 'GET /objects/{object_id}', attributes: { 'http.route': '/objects/{object_id}' } })
  })

  it('when no span is active, then nothing happens', () => {
    expect(() => nameActiveSpan('GET', '/objects/{object_id}')).not.toThrow()
  })
})
