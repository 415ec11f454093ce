import { readFileSync } from 'node:fs'
import { ConfigError, describeIssues } from '@content/platform'
import { parse as parseYaml } from 'yaml'
import { OBJECT_TYPE_NAMES, TYPE_BY_PLURAL } from '@content/api-schema'
import { z } from 'zod'
import { isAddressOrRange, type TrustedProxies } from '../http/trusted-proxies.js'
import {
  DEFAULT_BODY_LIMIT, DEFAULT_ENDPOINTS, DEFAULT_PATH_FILTERS, DEFAULT_WRITABLE_TYPES, FILTER_HANDLER_METHODS,
  DOC_PATHS, KNOWN_FILTERS, MEDIA_PATHS, METHODS, RESERVED_NAMES, type FilterName, type Method,
} from './defaults.js'

/** The validated routing configuration (decisions §9), defaults applied. */
export interface RoutingConfig {
  /** '' for the root, else '/segment(/segment)*' without a trailing slash */
  basePath: string
  blacklist: string[]
  pathFilters: Record<Method, FilterName[]>
  /** plural endpoint names, e.g. documents */
  objectTypeEndpoints: string[]
  writableTypes: string[]
  customEndpoints: string[]
  corsOrigins: '*' | string[]
  bodyLimit: number
  trustProxy: TrustedProxies | undefined
}

const names = z.array(z.string().min(1))
const BASE_PATH = /^\/([A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*\/?)?$/

const fileSchema = z.strictObject({
  basePath: z.string().regex(BASE_PATH, 'must be "/" or "/segment(/segment)*"').optional(),
  blacklist: names.optional(),
  pathFilters: z.strictObject({ GET: names.optional(), POST: names.optional(), PUT: names.optional(), DELETE: names.optional() }).optional(),
  objectTypeEndpoints: names.optional(),
  writableTypes: names.optional(),
  customEndpoints: names.optional(),
  // `['*']` is read as `'*'` (any origin): written either way in the wild; '*' beside origins means nothing
  corsOrigins: z.union([
    z.literal('*'),
    z.tuple([z.literal('*')]),
    z.array(z.string().url('must be an origin URL, or the list just [\'*\'] for any origin')),
  ]).optional(),
  bodyLimit: z.number().int().positive().max(100 * 1024 * 1024).optional(),
  trustProxy: z.union([z.boolean(), z.array(z.string().refine(isAddressOrRange, 'must be an IP address or CIDR range')).min(1)]).optional(),
})

type FileShape = z.infer<typeof fileSchema>

/** The keys a config file may hold (what the docs' examples are checked against). */
export const CONFIG_FILE_KEYS: readonly string[] = fileSchema.keyof().options

/** Checks that need more than one field's shape; every problem is collected. */
function semanticProblems (raw: unknown, customModules: ReadonlySet<string>): string[] {
  const problems: string[] = []
  const input = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>
  const list = (key: string): string[] => Array.isArray(input[key]) ? (input[key] as unknown[]).filter((v): v is string => typeof v === 'string') : []
  const known = (key: string, allowed: readonly string[], what: string) => {
    for (const name of list(key)) if (!allowed.includes(name)) problems.push(`${key}: unknown ${what} "${name}" (known: ${allowed.join(', ')})`)
  }
  known('blacklist', DEFAULT_ENDPOINTS, 'endpoint')
  known('objectTypeEndpoints', Object.keys(TYPE_BY_PLURAL), 'object-type endpoint')
  known('writableTypes', OBJECT_TYPE_NAMES, 'object type')
  for (const name of list('customEndpoints')) {
    if (!customModules.has(name)) problems.push(`customEndpoints: no module registered for "${name}"`)
  }
  const taken = new Map<string, string>(DEFAULT_ENDPOINTS.map((n) => [n, 'a default endpoint']))
  for (const n of RESERVED_NAMES) taken.set(n, 'reserved')
  for (const n of MEDIA_PATHS) taken.set(n, 'reserved for media')
  for (const n of DOC_PATHS) taken.set(n, 'reserved for the API description')
  for (const [key, what] of [['objectTypeEndpoints', 'an object-type endpoint'], ['customEndpoints', 'a custom endpoint']] as const) {
    for (const name of list(key)) {
      const other = taken.get(name)
      if (other) problems.push(`${key}: "${name}" is already ${other}`)
      taken.set(name, what)
    }
  }
  problems.push(...pathFilterProblems(input.pathFilters))
  return problems
}

function pathFilterProblems (raw: unknown): string[] {
  if (typeof raw !== 'object' || raw === null) return []
  const problems: string[] = []
  for (const [method, filters] of Object.entries(raw as Record<string, unknown>)) {
    if (!Array.isArray(filters) || !(METHODS as readonly string[]).includes(method)) continue
    for (const name of filters) {
      if (typeof name !== 'string') continue
      if (!(KNOWN_FILTERS as readonly string[]).includes(name)) {
        problems.push(`pathFilters.${method}: unknown filter "${name}" (known: ${KNOWN_FILTERS.join(', ')})`)
      } else if (!FILTER_HANDLER_METHODS[name as FilterName].includes(method as Method)) {
        problems.push(`pathFilters.${method}: filter "${name}" has no ${method} handler`)
      }
    }
  }
  return problems
}

function normalizeBasePath (path: string | undefined): string {
  if (!path || path === '/') return ''
  return path.endsWith('/') ? path.slice(0, -1) : path
}

/** No corsOrigins, `'*'` or `['*']`: every origin. */
const anyOrigin = (origins: FileShape['corsOrigins']): boolean =>
  origins === undefined || origins === '*' || (origins.length === 1 && origins[0] === '*')

function withDefaults (file: FileShape): RoutingConfig {
  const pathFilters = {} as Record<Method, FilterName[]>
  for (const method of METHODS) {
    pathFilters[method] = [...new Set((file.pathFilters?.[method] ?? DEFAULT_PATH_FILTERS[method]) as FilterName[])]
  }
  return {
    basePath: normalizeBasePath(file.basePath),
    blacklist: [...new Set(file.blacklist ?? [])],
    pathFilters,
    objectTypeEndpoints: [...new Set(file.objectTypeEndpoints ?? [])],
    writableTypes: [...new Set(file.writableTypes ?? DEFAULT_WRITABLE_TYPES)],
    customEndpoints: [...new Set(file.customEndpoints ?? [])],
    corsOrigins: anyOrigin(file.corsOrigins) ? '*' : file.corsOrigins as string[],
    bodyLimit: file.bodyLimit ?? DEFAULT_BODY_LIMIT,
    trustProxy: file.trustProxy,
  }
}

/**
 * Validates an already parsed config document. Throws one ConfigError listing EVERY problem.
 * `customModules` = names of the custom endpoint modules registered in code.
 */
export function validateRoutingConfig (raw: unknown, customModules: ReadonlySet<string>, source = 'config'): RoutingConfig {
  const doc = raw ?? {}
  const parsed = fileSchema.safeParse(doc)
  const problems = [
    ...(parsed.success ? [] : describeIssues(parsed.error)),
    ...semanticProblems(doc, customModules),
  ]
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems.map((p) => `${source}: ${p}`))
  return withDefaults(parsed.data)
}

/** Parses YAML or JSON text (JSON is YAML) and validates it. */
export function parseRoutingConfig (text: string, customModules: ReadonlySet<string>, source = 'config'): RoutingConfig {
  let doc: unknown
  try {
    doc = parseYaml(text)
  } catch (err) {
    throw new ConfigError([`${source}: not valid YAML/JSON: ${(err as Error).message.split('\n')[0]}`])
  }
  return validateRoutingConfig(doc, customModules, source)
}

/** Reads CONFIG_FILE when set; without one every default applies. */
export function loadRoutingConfig (path: string | undefined, customModules: ReadonlySet<string>): RoutingConfig {
  if (!path) return validateRoutingConfig({}, customModules)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new ConfigError([`CONFIG_FILE: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`])
  }
  return parseRoutingConfig(text, customModules, path)
}
