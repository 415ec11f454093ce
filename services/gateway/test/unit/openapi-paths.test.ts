import { describe, expect, it } from 'vitest'
import { compileRoutes } from '../../src/http/route-table.js'
import { validateRoutingConfig } from '../../src/routing/config-file.js'
import { METHODS } from '../../src/routing/defaults.js'
import { resolve } from '../../src/routing/resolve.js'
import { openapiDocument } from '../../src/openapi/document.js'
import { must } from '../support/must.js'

const table = (file: Record<string, unknown> = {}) =>
  compileRoutes(validateRoutingConfig(file, new Set(['echo'])), new Map([['echo', 'ALL' as const]]))

/** A value of each path parameter that the router takes. */
const SAMPLE: Record<string, string> = {
  object_id: '7', relation_name: 'attach', related_id: '8', child_id: '9', refresh_token: 'tok', object_type: 'image',
  file_name: 'a.jpg', key: 'k', file: '10x10.png', asset: 'swagger-ui.css', revision: '2',
}
const segmentsOf = (basePath: string, path: string) =>
  `${basePath}${path}`.split('/').filter(Boolean).map((s) => s.replace(/^\{(.+)\}$/, (_, name: string) => must(SAMPLE[name])))

const CONFIGS: Array<[string, Record<string, unknown>]> = [
  ['the default configuration', {}],
  ['a configuration with every option', {
    basePath: '/api/v2', blacklist: ['poster'], objectTypeEndpoints: ['documents', 'images'], customEndpoints: ['echo'],
    pathFilters: { GET: ['relations', 'children', 'ancestors', 'parents'], POST: ['children'], PUT: [], DELETE: ['relations'] },
  }],
]

describe.each(CONFIGS)('the OpenAPI paths of %s', (_, file) => {
  const t = table(file)
  const operations = t.routes

  it('route, method by method, to the handler the document names', () => {
    for (const op of operations) {
      const got = resolve(t, op.method, segmentsOf(t.basePath, op.path))
      expect({ at: `${op.method} ${op.path}`, got: got.kind === 'route' ? got.route.spec.name : got }).toEqual({ at: `${op.method} ${op.path}`, got: op.spec.name })
    }
  })

  it('answer 405 to every method the document leaves out', () => {
    const byPath = new Map<string, Set<string>>()
    for (const op of operations) (byPath.get(op.path) ?? must(byPath.set(op.path, new Set()).get(op.path))).add(op.method)
    for (const [path, methods] of byPath) {
      for (const method of METHODS.filter((m) => !methods.has(m))) {
        const got = resolve(t, method, segmentsOf(t.basePath, path))
        expect({ at: `${method} ${path}`, status: got.kind === 'error' ? got.status : got.route.spec.name }).toEqual({ at: `${method} ${path}`, status: 405 })
      }
    }
  })

  it('are the document\'s paths, below the base path as its server', () => {
    const doc = openapiDocument(t, { version: '0' }) as { servers: Array<{ url: string }>, paths: Record<string, Record<string, unknown>> }
    expect(must(doc.servers[0]).url).toBe(t.basePath || '/')
    expect(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)).sort())
      .toEqual(operations.map((op) => `${op.method} ${op.path}`).sort())
  })
})
