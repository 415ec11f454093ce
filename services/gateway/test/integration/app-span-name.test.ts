import { beforeEach, describe, expect, it, vi } from 'vitest'
import { gatewayTest } from '../support/gateway-test.js'

// the trace span is named through the platform; what matters here is what the gateway asks it
const named = vi.hoisted(() => vi.fn())
vi.mock('@content/platform', async (importOriginal) => ({ ...await importOriginal<object>(), nameActiveSpan: named }))

const gw = gatewayTest()
beforeEach(() => { named.mockClear() })

describe('the trace span of a request', () => {
  it.each([
    ['GET', '/objects/3?lang=en', '/objects/{object_id}'],
    ['GET', '/objects/1/children/3', '/objects/{object_id}/children/{child_id}'],
    ['HEAD', '/objects/1/relations/attach', '/objects/{object_id}/relations/{relation_name}'],
    ['GET', '/healthz', '/healthz'],
  ] as const)('%s %s is named after the route %s', async (method, url, route) => {
    await gw.app.inject({ method, url })
    expect(named).toHaveBeenCalledExactlyOnceWith(method, route)
  })

  it('a request no route answers leaves the span as it is', async () => {
    expect((await gw.app.inject({ method: 'GET', url: '/nothing/here' })).statusCode).toBe(404)
    expect(named).not.toHaveBeenCalled()
  })
})
