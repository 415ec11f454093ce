/** values.yaml, the CI overlays and the schema, loaded the way helm sees them. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv, type ErrorObject } from 'ajv'
import { parse } from 'yaml'
import { CHART_DIR } from './helm.js'

export type Values = Record<string, unknown>

/** Helm reads values as YAML 1.1 (a bare `on` or `y` is a boolean), so the tests do too. */
export const readYaml = (file: string): Values => parse(readFileSync(file, 'utf8'), { version: '1.1' }) as Values
export const defaultValues = (): Values => readYaml(join(CHART_DIR, 'values.yaml'))
export const schema = JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8')) as Record<string, unknown>

const isMap = (v: unknown): v is Values => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Helm's coalescing: maps merge key by key, anything else replaces, null deletes. */
export function mergeValues (base: Values, override: Values): Values {
  const out: Values = { ...base }
  for (const [key, value] of Object.entries(override)) {
    const current = out[key]
    if (value === null) delete out[key]
    else if (isMap(current) && isMap(value)) out[key] = mergeValues(current, value)
    else out[key] = value
  }
  return out
}

/** Builds a nested overlay from a dotted path: at('a.b', 1) → {a: {b: 1}}. */
export function at (path: string, value: unknown): Values {
  return path.split('.').reduceRight<unknown>((inner, key) => ({ [key]: inner }), value) as Values
}

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true })
const validate = ajv.compile(schema)

export function schemaErrors (values: Values): ErrorObject[] {
  return validate(values) ? [] : [...(validate.errors ?? [])]
}

export const describeErrors = (errors: ErrorObject[]): string =>
  errors.map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`).join('\n')
