import { describe, expect, it } from 'vitest'
import { MAX_JSON_DEPTH } from '@content/platform'
import { gatewayTest } from '../support/gateway-test.js'
import { signToken } from '../support/tokens.js'

const gw = gatewayTest()

const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`

describe('JSON bodies nested too deep', () => {
  it('when any write body nests deeper than the limit, then 400 JSON_TOO_DEEP before parsing, whoever asks, and no backend is called', async () => {
    const editor = `Bearer ${await signToken({ id: 7, groups: ['editor'] })}`
    const writes: [string, string, string][] = [
      ['POST', '/objects', `{"data":{"title":"x","extra":${deep(5_000)}}}`],
      ['POST', '/objects/3/relations/attach', `{"data":[{"related_id":4,"params":${deep(4_500)}}]}`],
      ['PUT', '/objects/3/relations/attach/4', `{"data":{"params":${deep(4_500)}}}`],
      ['POST', '/objects/1/children', `{"data":[${deep(MAX_JSON_DEPTH)}]}`],
      ['POST', '/auth', `{"username":${deep(100_000)}}`],
    ]
    for (const authorization of [editor, undefined]) {
      for (const [method, url, payload] of writes) {
        const before = gw.backends.calls.length
        const res = await gw.app.inject({ method: method as 'POST', url, payload, headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) } })
        expect(res.statusCode, `${method} ${url}`).toBe(400)
        expect(res.json().error).toMatchObject({ status: 400, code: 'JSON_TOO_DEEP' })
        expect(gw.backends.calls.length).toBe(before)
      }
    }
  })

  it('when a body nests to the limit, then it is parsed and handled as usual', async () => {
    const res = await gw.app.inject({
      method: 'POST', url: '/objects', payload: `{"data":{"id":3,"custom_properties":${deep(MAX_JSON_DEPTH - 3)}}}`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await signToken({ id: 7, groups: ['editor'] })}` },
    })
    expect(res.statusCode).toBeLessThan(500)
    expect(res.json().error?.code).not.toBe('JSON_TOO_DEEP')
  })
})
