/** Settings of the k6 scripts from their environment (`__ENV`), checked all at once. */

/** Closed-model shapes (a number of VUs) and open-model ones (a rate of iterations, whatever the answers take). */
export const PRESETS = ['smoke', 'average', 'stress', 'spike', 'constant-rate', 'ramping-rate'] as const
export type PresetName = typeof PRESETS[number]
export const ARRIVAL_RATE_PRESETS: readonly PresetName[] = ['constant-rate', 'ramping-rate']

export interface LoadConfig {
  baseUrl: string
  preset: PresetName
  vus: number
  /** iterations started per second by the arrival-rate presets */
  rate: number
  /** most VUs an arrival-rate preset may start when answers slow down */
  maxVus: number
  thinkTimeSeconds: number
  pageSize: number
  /** the `testid` tag of every metric of the run */
  testId: string
  /** where handleSummary writes the run's summary as JSON, besides the last line of stdout */
  summaryFile: string | undefined
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

/** The run's id when TESTID is unset: the script and the start time, e.g. `read-objects-20260131T120000Z`. */
export function defaultTestId (script: string, now: Date): string {
  return `${script}-${now.toISOString().replace(/[-:]|\.\d+/g, '')}`
}

function positiveInt (env: Env, name: string, fallback: number, problems: string[]): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 1) problems.push(`${name} must be a positive integer, got "${raw}"`)
  return n
}

export interface ConfigOptions {
  /** missing credentials are an error */
  needsCredentials?: boolean
  /** the script's name, for the default TESTID */
  script?: string
  now?: Date
}

/**
 * Reads BASE_URL (default http://localhost:8080), PRESET, VUS, RATE, MAX_VUS, THINK_TIME (default 1 s, 0 with
 * an arrival-rate preset, which paces iterations itself), PAGE_SIZE, TESTID, SUMMARY_FILE and the credentials
 * (API_USERNAME/API_PASSWORD, falling back to ADMIN_USERNAME/ADMIN_PASSWORD; not USERNAME, which some
 * systems set for the login user). Throws one Error naming every problem.
 */
export function readConfig (env: Env, { needsCredentials = false, script = 'k6', now = new Date() }: ConfigOptions = {}): LoadConfig {
  const problems: string[] = []
  const baseUrl = (env.BASE_URL || 'http://localhost:8080').replace(/\/+$/, '')
  if (!/^https?:\/\/[^/]+/.test(baseUrl)) problems.push(`BASE_URL must be an http(s) URL, got "${baseUrl}"`)
  const preset = (env.PRESET || 'smoke') as PresetName
  if (!PRESETS.includes(preset)) problems.push(`PRESET must be one of ${PRESETS.join(', ')}, got "${preset}"`)
  const vus = positiveInt(env, 'VUS', 20, problems)
  const rate = positiveInt(env, 'RATE', 10, problems)
  const maxVus = positiveInt(env, 'MAX_VUS', Math.max(100, vus), problems)
  if (maxVus < vus) problems.push(`MAX_VUS (${maxVus}) must be at least VUS (${vus}), the VUs an arrival-rate preset starts with`)
  const pageSize = positiveInt(env, 'PAGE_SIZE', 20, problems)
  if (pageSize > 100) problems.push('PAGE_SIZE must be at most 100')
  const testId = env.TESTID || defaultTestId(script, now)
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(testId)) problems.push(`TESTID must be 1-128 letters, digits and . _ : -, got "${testId}"`)
  const think = Number(env.THINK_TIME ?? (ARRIVAL_RATE_PRESETS.includes(preset) ? '0' : '1'))
  if (!Number.isFinite(think) || think < 0) problems.push(`THINK_TIME must be a number of seconds ≥ 0, got "${env.THINK_TIME}"`)
  const password = env.API_PASSWORD || env.ADMIN_PASSWORD
  const username = env.API_USERNAME || env.ADMIN_USERNAME || (password ? 'admin' : undefined)
  if (needsCredentials && (!username || !password)) problems.push('set API_USERNAME and API_PASSWORD (or ADMIN_PASSWORD, with ADMIN_USERNAME defaulting to admin)')
  if (problems.length > 0) throw new Error(`invalid k6 settings:\n  - ${problems.join('\n  - ')}`)
  return { baseUrl, preset, vus, rate, maxVus, thinkTimeSeconds: think, pageSize, testId, summaryFile: env.SUMMARY_FILE || undefined, username, password }
}
