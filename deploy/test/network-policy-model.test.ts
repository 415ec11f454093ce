/** The NetworkPolicy model the chart's flow tests rely on, pinned to the API's rules on hand-made policies. */
import { describe, expect, it } from 'vitest'
import { allows, type Endpoint } from './support/network-policy.js'

const a: Endpoint = { namespace: 'ns', labels: { app: 'a' }, ports: { web: 8080 } }
const b: Endpoint = { namespace: 'ns', labels: { app: 'b' }, ports: { web: 8080 } }
const other: Endpoint = { namespace: 'other', labels: { app: 'a' } }
const policy = (app: string, types: string[], rules: Record<string, unknown> = {}) =>
  ({ metadata: { name: app }, spec: { podSelector: { matchLabels: { app } }, policyTypes: types, ...rules } })

describe('NetworkPolicy model', () => {
  it('without a selecting policy everything flows; a policy with no rules isolates its direction only', () => {
    expect(allows([], 'ns', a, b, { port: 1 })).toBe(true)
    expect(allows([policy('b', ['Ingress'])], 'ns', a, b, { port: 1 })).toBe(false)
    expect(allows([policy('b', ['Ingress'])], 'ns', b, a, { port: 1 })).toBe(true)
  })

  it('both ends must agree: the sender\'s egress and the receiver\'s ingress', () => {
    const bIn = policy('b', ['Ingress'], { ingress: [{ from: [{ podSelector: { matchLabels: { app: 'a' } } }] }] })
    const aOut = policy('a', ['Egress'], { egress: [] })
    expect(allows([bIn], 'ns', a, b, { port: 1 })).toBe(true)
    expect(allows([bIn, aOut], 'ns', a, b, { port: 1 })).toBe(false)
  })

  it('a podSelector alone means the policy\'s namespace; with a namespaceSelector in the same peer, both must match', () => {
    const byPod = policy('b', ['Ingress'], { ingress: [{ from: [{ podSelector: { matchLabels: { app: 'a' } } }] }] })
    expect(allows([byPod], 'ns', other, b, { port: 1 })).toBe(false)
    const both = policy('b', ['Ingress'], { ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'other' } }, podSelector: { matchLabels: { app: 'x' } } }] }] })
    expect(allows([both], 'ns', other, b, { port: 1 })).toBe(false)
  })

  it('named ports resolve on the receiving pod; protocols must match; ipBlock matches addresses', () => {
    const web = policy('b', ['Ingress'], { ingress: [{ ports: [{ port: 'web', protocol: 'TCP' }] }] })
    expect(allows([web], 'ns', a, b, { port: 8080 })).toBe(true)
    expect(allows([web], 'ns', a, b, { port: 8081 })).toBe(false)
    expect(allows([web], 'ns', a, b, { port: 8080, protocol: 'UDP' })).toBe(false)
    const out = policy('a', ['Egress'], { egress: [{ to: [{ ipBlock: { cidr: '10.1.0.0/16', except: ['10.1.2.0/24'] } }] }] })
    expect(allows([out], 'ns', a, { namespace: '', ip: '10.1.9.9' }, { port: 1 })).toBe(true)
    expect(allows([out], 'ns', a, { namespace: '', ip: '10.1.2.9' }, { port: 1 })).toBe(false)
    expect(allows([out], 'ns', a, { namespace: '', ip: '10.2.0.1' }, { port: 1 })).toBe(false)
  })
})
