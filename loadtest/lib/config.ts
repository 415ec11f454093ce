/** Settings of the k6 scripts from their environment (`__ENV`), checked all at once. */

export const PRESETS = ['smoke', 'average', 'stress', 'spike'] as const
export type PresetName = typeof PRESETS[number]

export interface LoadConfig {
  baseUrl: string
  preset: PresetName
  vus: number
  thinkTimeSeconds: number
  pageSize: number
  username: string | undefined
  password: string | undefined
}

type Env = Record<string, string | undefined>

/**
 * The gateway's health check for a BASE_URL: `/healthz` is served at the root of the gateway's origin
 * only, never below the configured base path (`http://host/api` → `http://host/healthz`).
 */
export function healthUrl (baseUrl: string): string {
  const origin = /^https?:\/\/[^/?#]+/.exec(baseUrl)?.[0]
  if (origin === undefined) throw new Error(`BASE_URL must be an http(s) URL, got "${baseUrl}"`)
  return `${origin}/healthz`
}

/** The username and password, for the scripts whose config readConfig checked has them. */
export function credentialsOf (config: LoadConfig): [username: string, password: string] {
  if (config.username === undefined || config.password === undefined) throw new Error('set API_USERNAME and API_PASSWORD')
  return [config.username, config.password]
}

function positiveInt (env: Env, name: string, fallback: number, problems: string[]): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1) problems.push(`${name} must be a positive integer, got "${raw}"`)
  return n
}

/**
 * Reads BASE_URL (default http://localhost:8080), PRESET, VUS, THINK_TIME, PAGE_SIZE and the
 * credentials (API_USERNAME/API_PASSWORD, falling back to ADMIN_USERNAME/ADMIN_PASSWORD; not
 * USERNAME, which some systems set for the login user). `needsCredentials`
 * makes missing credentials an error. Throws one Error naming every problem.
 */
export function readConfig (env: Env, needsCredentials = false): LoadConfig {
  const problems: string[] = []
  const baseUrl = (env.BASE_URL || 'http://localhost:8080').replace(/\/+$/, '')
  if (!/^https?:\/\/[^/]+/.test(baseUrl)) problems.push(`BASE_URL must be an http(s) URL, got "${baseUrl}"`)
  const preset = (env.PRESET || 'smoke') as PresetName
  if (!PRESETS.includes(preset)) problems.push(`PRESET must be one of ${PRESETS.join(', ')}, got "${preset}"`)
  const vus = positiveInt(env, 'VUS', 20, problems)
  const pageSize = positiveInt(env, 'PAGE_SIZE', 20, problems)
  if (pageSize > 100) problems.push('PAGE_SIZE must be at most 100')
  const think = Number(env.THINK_TIME ?? '1')
  if (!Number.isFinite(think) || think < 0) problems.push(`THINK_TIME must be a number of seconds ≥ 0, got "${env.THINK_TIME}"`)
  const password = env.API_PASSWORD || env.ADMIN_PASSWORD
  const username = env.API_USERNAME || env.ADMIN_USERNAME || (password ? 'admin' : undefined)
  if (needsCredentials && (!username || !password)) problems.push('set API_USERNAME and API_PASSWORD (or ADMIN_PASSWORD, with ADMIN_USERNAME defaulting to admin)')
  if (problems.length > 0) throw new Error(`invalid k6 settings:\n  - ${problems.join('\n  - ')}`)
  return { baseUrl, preset, vus, thinkTimeSeconds: think, pageSize, username, password }
}
