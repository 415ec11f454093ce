/**
 * Decides whether rendered NetworkPolicies let one endpoint open a connection to another, the way the
 * Kubernetes NetworkPolicy API defines it: a pod selected by a policy of a direction is isolated in that
 * direction, and then a connection needs a rule of one of those policies that matches peer and port, on
 * both the sender's egress and the receiver's ingress. matchLabels and ipBlock only (all the chart uses).
 */
import type { Doc } from './chart.js'
import { must } from './must.js'

export interface Endpoint {
  namespace: string
  /** labels of the pod; undefined for an address outside the cluster's pods */
  labels?: Record<string, string>
  ip?: string
  /** named container ports of the pod */
  ports?: Record<string, number>
}
export interface Connection { port: number, protocol?: 'TCP' | 'UDP' }

function matches (selector: Doc | undefined, labels: Record<string, string> = {}): boolean {
  if (selector?.matchExpressions !== undefined) throw new Error('matchExpressions are not modelled')
  return Object.entries((selector?.matchLabels ?? {}) as Record<string, string>).every(([k, v]) => labels[k] === v)
}

const nsLabels = (namespace: string) => ({ 'kubernetes.io/metadata.name': namespace })

function ipv4 (ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0)
}

function inCidr (ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/') as [string, string]
  const size = 2 ** (32 - Number(bits))
  return Math.floor(ipv4(ip) / size) === Math.floor(ipv4(base) / size)
}

/** One peer of a rule, seen from a policy in `policyNamespace`. */
function peerMatches (peer: Doc, other: Endpoint, policyNamespace: string): boolean {
  if (peer.ipBlock) {
    return other.ip !== undefined && inCidr(other.ip, peer.ipBlock.cidr) &&
      !((peer.ipBlock.except ?? []) as string[]).some((c) => inCidr(must(other.ip), c))
  }
  if (!other.labels) return false
  const namespaceOk = peer.namespaceSelector
    ? matches(peer.namespaceSelector, nsLabels(other.namespace))
    : other.namespace === policyNamespace
  return namespaceOk && (peer.podSelector === undefined || matches(peer.podSelector, other.labels))
}

function portMatches (ports: Doc[] | undefined, target: Endpoint, conn: Connection): boolean {
  if (!ports || ports.length === 0) return true
  return ports.some((p) => {
    if ((p.protocol ?? 'TCP') !== (conn.protocol ?? 'TCP')) return false
    if (p.port === undefined) return true
    const number = typeof p.port === 'string' ? target.ports?.[p.port] : p.port
    return number !== undefined && (p.endPort !== undefined ? conn.port >= number && conn.port <= p.endPort : conn.port === number)
  })
}

function allowedOneSide (policies: Doc[], namespace: string, self: Endpoint, other: Endpoint, target: Endpoint,
  conn: Connection, direction: 'Ingress' | 'Egress'): boolean {
  if (!self.labels) return true // not a pod: no policy applies to it
  const selecting = policies.filter((p) => (p.metadata.namespace ?? namespace) === self.namespace &&
    matches(p.spec.podSelector, self.labels) && (p.spec.policyTypes as string[]).includes(direction))
  if (selecting.length === 0) return true
  const key = direction === 'Ingress' ? 'from' : 'to'
  return selecting.some((p) => ((p.spec[direction.toLowerCase()] ?? []) as Doc[]).some((rule) =>
    (rule[key] === undefined || (rule[key] as Doc[]).length === 0 || (rule[key] as Doc[]).some((peer) => peerMatches(peer, other, self.namespace))) &&
    portMatches(rule.ports, target, conn)))
}

/** Rendered policies (without a namespace of their own) are taken to live in `namespace`. */
export function allows (policies: Doc[], namespace: string, from: Endpoint, to: Endpoint, conn: Connection): boolean {
  return allowedOneSide(policies, namespace, from, to, to, conn, 'Egress') &&
    allowedOneSide(policies, namespace, to, from, to, conn, 'Ingress')
}
