import { pino, type Logger } from 'pino'

export type { Logger }

/** Paths whose values never reach a log line. */
export const REDACT_PATHS = [
  'password', '*.password', 'refresh_token', '*.refresh_token', 'access_token', '*.access_token',
  'authorization', '*.authorization', 'req.headers.authorization', 'req.headers.cookie',
  'headers.authorization', 'token', '*.token',
]

const REDACTED = '[Redacted]'
/** A query key whose value is a secret, however spelt: access_token, ACCESS_TOKEN, refresh_token, password… */
const SECRET_KEY = /token|password|secret/i

/** The path as the router sees it: percent-decoded segments, an encoded slash splitting too, empty ones dropped. */
function segmentsOf (path: string): string[] | null {
  try {
    return path.split('/').map((s) => (s.includes('%') ? decodeURIComponent(s) : s)).join('/').split('/').filter((s) => s !== '')
  } catch {
    return null
  }
}

/**
 * The URL for a log line, rebuilt from its parsed, decoded path and query, so that no spelling of a token
 * reaches a log: every segment after an `auth` segment (`DELETE /auth/{refresh_token}`, below any base
 * path) and the value of every query parameter whose decoded name names a secret are replaced. A path
 * that does not decode is not logged at all.
 */
export function redactUrl (url: string): string {
  const cut = url.search(/[?#]/)
  const path = cut === -1 ? url : url.slice(0, cut)
  const rest = cut === -1 ? '' : url.slice(cut)
  const segments = segmentsOf(path)
  if (segments === null) return '[Redacted: a path that is not valid percent-encoding]'
  const auth = segments.findIndex((s) => s.toLowerCase() === 'auth')
  const shown = segments.map((s, i) => (auth !== -1 && i > auth ? REDACTED : encodeURIComponent(s)))
  const query = rest.startsWith('?') ? rest.slice(1).split('#')[0] ?? '' : ''
  if (query === '') return `/${shown.join('/')}`
  const params = [...new URLSearchParams(query)].map(([k, v]) => `${encodeURIComponent(k)}=${SECRET_KEY.test(k) ? REDACTED : encodeURIComponent(v)}`)
  return `/${shown.join('/')}?${params.join('&')}`
}

export interface LoggerOptions {
  service: string
  level?: string
}

export interface CreateLoggerOptions extends LoggerOptions {
  /** where the lines go: 1 (stdout, the default) or 2 (stderr, for a command whose stdout is its answer) */
  fd?: 1 | 2
}

/** Options shared by every pino instance (fastify builds its own logger from them). */
export function loggerOptions ({ service, level = 'info' }: LoggerOptions) {
  return {
    level,
    base: { service },
    redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
    serializers: {
      req: (req: { method?: string, url?: string, id?: string }) => ({
        id: req.id, method: req.method, url: req.url === undefined ? undefined : redactUrl(req.url),
      }),
    },
  }
}

/** JSON lines to stdout (or stderr); one logger per process, children everywhere else. */
export function createLogger (options: CreateLoggerOptions): Logger {
  return options.fd === 2 ? pino(loggerOptions(options), pino.destination(2)) : pino(loggerOptions(options))
}
