import type { RouteNode, RouteTable } from './compile.js'
import { METHODS, type Method } from './defaults.js'
import { PATH_PARAMS } from './path-params.js'
import { NONE, routeError, type Resolution, type RouteError, type RouteParams } from './route-types.js'

/**
 * The decoded, non-empty segments of a request target's path (the query left out), as the router reads
 * them; null when a segment is not valid percent-encoding.
 */
export function pathSegments (url: string): string[] | null {
  const q = url.indexOf('?')
  const path = q === -1 ? url : url.slice(0, q)
  const segments: string[] = []
  try {
    for (const segment of path.split('/')) if (segment !== '') segments.push(segment.includes('%') ? decodeURIComponent(segment) : segment)
  } catch {
    return null
  }
  return segments
}

const notAllowed = (method: string, allow: Method[]): RouteError =>
  routeError('METHOD_NOT_ALLOWED', `${method} is not allowed here`, { allow })

const surplus = (segments: readonly string[]): RouteError =>
  routeError('SURPLUS_PATH_SEGMENTS', `unexpected path segments: /${segments.join('/')}`)

/** A path that stops where a parameter comes. */
function missing<H> (node: RouteNode<H>, name: string): RouteError {
  const template = node.template ?? ''
  return routeError('MISSING_PARAMETER', `${name} is required: ${template}`, { details: { parameter: name } })
}

/** A next segment no child of `node` takes. */
function unknownChild<H> (node: RouteNode<H>, rest: readonly string[]): RouteError {
  const u = node.unknownChild
  const segment = rest[0] ?? ''
  if (!u) return surplus(rest)
  return routeError(u.reason, u.message(segment), u.details ? { details: u.details(segment) } : {})
}

/**
 * The whole routing decision, pure: decoded path segments (empty ones dropped) and a method in, the
 * route with its parameters, or the 400/404/405 to answer, out. HEAD is routed as GET. In the path's
 * order: the base path, the endpoint (unknown 404, blacklisted 405, one with a single method 405 for
 * others), then segment by segment (a parameter that does not parse 400, an unknown path filter 400,
 * surplus segments 400, a missing parameter 400), then the method (405 with the methods of the path).
 */
export function resolve<H> (table: RouteTable<H>, rawMethod: string, segments: readonly string[]): Resolution<H> {
  const upper = rawMethod.toUpperCase()
  const method = upper === 'HEAD' ? 'GET' : upper
  const base = table.baseSegments
  for (let i = 0; i < base.length; i++) if (segments[i] !== base[i]) return routeError('ENDPOINT_NOT_FOUND', 'no endpoint at this path')
  const path = base.length === 0 ? segments : segments.slice(base.length)
  const endpoint = path[0] ?? ''
  const policy = table.policies.get(endpoint)
  const resolution = walk(table, method, path, policy?.disabled ? 'disabled' : policy?.methods)
  return policy?.rawBody ? { ...resolution, rawBody: true } : resolution
}

function walk<H> (table: RouteTable<H>, method: string, path: readonly string[], only: 'disabled' | readonly Method[] | undefined): Resolution<H> {
  if (only === 'disabled') return routeError('METHOD_NOT_ALLOWED', `endpoint "${path[0]}" is disabled`, { allow: [] })
  if (only && !(only as readonly string[]).includes(method)) return notAllowed(method, [...only])
  let node = table.root
  let params: RouteParams | undefined
  for (let i = 0; i < path.length; i++) {
    const segment = path[i] as string
    const literal = node.literals.get(segment)
    if (literal) { node = literal; continue }
    if (node.param) {
      const spec = PATH_PARAMS[node.param.name]
      const value = spec?.parse ? spec.parse(segment) : segment
      if (typeof value === 'object') return value
      params ??= {}
      ;(params as Record<string, unknown>)[spec?.key ?? node.param.name] = value
      node = node.param.node
      continue
    }
    if (node.rest) {
      params ??= {}
      params.rest = path.slice(i)
      node = node.rest.node
      return choose(node, method, params)
    }
    return unknownChild(node, path.slice(i))
  }
  if (!node.routes) {
    if (node.rest?.min === 0) return choose(node.rest.node, method, { ...params, rest: [] })
    if (node.unknownChild?.reason === 'ENDPOINT_NOT_FOUND') return unknownChild(node, [])
    const next = node.param?.name ?? node.rest?.name
    return next === undefined ? unknownChild(node, []) : missing(node, next)
  }
  return choose(node, method, params ?? {})
}

function choose<H> (node: RouteNode<H>, method: string, params: RouteParams): Resolution<H> {
  const route = node.routes?.get(method as Method)
  if (!route) return notAllowed(method, METHODS.filter((m) => node.routes?.has(m)))
  return { kind: 'route', route, params: route.fixed === NONE ? params : { ...route.fixed, ...params } }
}
