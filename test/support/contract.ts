import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { must } from './must.js'

/**
 * The API's own OpenAPI document as a contract on every answer a system test receives: the status must
 * be one the operation documents (any error status falls to `default`), the content type one it names,
 * and a JSON body must match the schema. An answer that does not is a failed test.
 */

// biome-ignore lint/suspicious/noExplicitAny: parts of the OpenAPI document, walked by path as JSON
type Json = Record<string, any>

interface Template { path: string, pattern: RegExp, literals: number }

export interface Contract {
  /** Problems of one answer; empty when it matches the document. */
  check (method: string, url: URL, status: number, contentType: string | null, body: string | undefined): string[]
}

/** Probes of the pod: outside the API and its document. */
const OUTSIDE = new Set(['/healthz', '/readyz'])

const pointer = (...parts: string[]) => `#/${parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`

function templates (doc: Json): Template[] {
  return Object.keys(doc.paths as Json).map((path) => {
    const segments = path.split('/').filter(Boolean)
    const pattern = new RegExp(`^/${segments.map((s) => /^\{.+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('/')}/?$`)
    return { path, pattern, literals: segments.filter((s) => !s.startsWith('{')).length }
  }).sort((a, b) => b.literals - a.literals)
}

export function compileContract (doc: Json): Contract {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats.default(ajv)
  const KEY = 'openapi.json'
  ajv.addSchema(doc, KEY)
  const validators = new Map<string, ValidateFunction>()
  const validator = (ref: string) => {
    let v = validators.get(ref)
    if (!v) { v = ajv.compile({ $ref: KEY + ref }); validators.set(ref, v) }
    return v
  }
  const server = String(doc.servers?.[0]?.url ?? '/').replace(/\/$/, '')
  const routes = templates(doc)
  const errorBody = pointer('components', 'schemas', 'ErrorBody')

  function checkJson (ref: string, body: string | undefined, problems: string[]) {
    let value: unknown
    try {
      value = JSON.parse(body ?? '')
    } catch {
      problems.push('the body is not JSON')
      return
    }
    const validate = validator(ref)
    if (!validate(value)) problems.push(...(validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`))
  }

  return {
    check (rawMethod, url, status, contentType, body) {
      const method = rawMethod.toUpperCase() === 'HEAD' ? 'get' : rawMethod.toLowerCase()
      const path = url.pathname
      if (OUTSIDE.has(path) || method === 'options') return []
      const problems: string[] = []
      const json = contentType?.startsWith('application/json') ?? false
      const inServer = path === server || path.startsWith(`${server}/`)
      const route = inServer ? routes.find((r) => r.pattern.test(path.slice(server.length) || '/')) : undefined
      const op = route ? doc.paths[route.path][method] as Json | undefined : undefined
      if (!op) {
        // answers the document does not describe must be errors in the error body
        if (status < 400) return [`${rawMethod} ${path} answered ${status}, but the document has no such operation`]
        if (body !== undefined && status !== 431) checkJson(errorBody, body, problems)
        return problems
      }
      const key = op.responses[String(status)] ? String(status) : status >= 400 ? 'default' : undefined
      if (!key) return [`${rawMethod} ${path} answered ${status}, which ${must(route).path} ${method} does not document`]
      if (status >= 400) {
        if (body !== undefined) checkJson(errorBody, body, problems)
        return problems
      }
      const content = op.responses[key].content as Json | undefined
      if (!content) return body ? [`${rawMethod} ${path} ${status} has a body the document does not describe`] : []
      if (body === undefined || rawMethod.toUpperCase() === 'HEAD') return []
      const types = Object.keys(content)
      const type = types.find((t) => t === '*/*' || must((contentType ?? '').split(';')[0]).trim() === t)
      if (!type) return [`${rawMethod} ${path} ${status} is ${contentType}, not ${types.join(' or ')}`]
      if (json && content[type].schema?.format !== 'binary') checkJson(pointer('paths', must(route).path, method, 'responses', key, 'content', type, 'schema'), body, problems)
      return problems
    },
  }
}
