import { present } from '@content/platform'
import type { RouteTable } from '../routing/compile.js'
import { KNOWN_FILTERS, METHODS, type FilterName, type Method } from '../routing/defaults.js'
import type { HandlerKey } from '../routing/resolve.js'

/** One operation of the document: a path template below the base path, a method, its handler. */
export interface PathOperation { path: string, method: Method, handler: HandlerKey }

type Shape = Partial<Record<Method, HandlerKey>>

const ops = (path: string, shape: Shape, enabled: (m: Method) => boolean = () => true): PathOperation[] =>
  METHODS.filter((m) => shape[m] !== undefined && enabled(m)).map((method) => ({ path, method, handler: present(shape[method], `the ${method} handler of ${path}`) }))

/** The shapes of `/{id}/{filter}/…`, as `resolve` routes them. */
function filterPaths (prefix: string, filter: FilterName): Array<[string, Shape]> {
  const at = `${prefix}/${filter}`
  if (filter === 'relations') {
    return [
      [at, { GET: 'relations.summary' }],
      [`${at}/{relation_name}`, { GET: 'relations.list', POST: 'relations.save' }],
      [`${at}/{relation_name}/{related_id}`, { GET: 'relations.get', PUT: 'relations.replace', DELETE: 'relations.delete' }],
    ]
  }
  if (filter === 'children') {
    return [[at, { GET: 'tree.list', POST: 'children.save' }], [`${at}/{child_id}`, { GET: 'children.get', PUT: 'children.update', DELETE: 'children.remove' }]]
  }
  return [[at, { GET: 'tree.list' }]]
}

function objectPaths (table: RouteTable, name: string, list: Shape, single: Shape, getOnly: boolean): PathOperation[] {
  const prefix = `/${name}/{object_id}`
  const out = [...ops(`/${name}`, list), ...ops(prefix, single)]
  for (const filter of KNOWN_FILTERS) {
    const enabled = (m: Method) => table.filters[m].has(filter) && (!getOnly || m === 'GET')
    for (const [path, shape] of filterPaths(prefix, filter)) out.push(...ops(path, shape, enabled))
  }
  return out
}

/** Every operation the route table answers, in a stable order. */
export function pathOperations (table: RouteTable): PathOperation[] {
  const out: PathOperation[] = [...ops('/', { GET: 'listing' })]
  for (const spec of table.endpoints.values()) {
    if (spec.kind === 'object-type') {
      out.push(...objectPaths(table, spec.name, { GET: 'type.list' }, { GET: 'type.get' }, true))
    } else if (spec.kind === 'custom') {
      const methods = spec.methods === 'ALL' ? METHODS : spec.methods
      out.push(...methods.map((method) => ({ path: `/${spec.name}`, method, handler: 'custom' as const })))
    } else if (spec.name === 'auth') {
      out.push(...ops('/auth', { GET: 'auth.status', POST: 'auth.login' }), ...ops('/auth/{refresh_token}', { DELETE: 'auth.revoke' }))
    } else if (spec.name === 'me') {
      out.push(...ops('/me', { GET: 'me' }))
    } else if (spec.name === 'poster') {
      out.push(...ops('/poster/{object_id}', { GET: 'poster' }))
    } else if (spec.name === 'files') {
      out.push(...ops('/files/{object_type}/{file_name}', { POST: 'files.upload' }))
    } else {
      out.push(...objectPaths(table, spec.name, { GET: 'objects.list', POST: 'objects.save' }, { GET: 'objects.get', DELETE: 'objects.delete' }, false))
    }
  }
  out.push(
    ...ops('/media/{object_id}/{file_name}', { GET: 'media.original' }),
    ...ops('/thumbnails/{key}/{file}', { GET: 'media.thumbnail' }),
    ...ops('/openapi.json', { GET: 'docs.openapi' }),
    ...ops('/docs', { GET: 'docs.page' }),
    ...ops('/docs/errors', { GET: 'docs.errors' }),
    ...ops('/docs/assets/{asset}', { GET: 'docs.asset' }),
  )
  return out
}
