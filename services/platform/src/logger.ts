import { pino, type Logger } from 'pino'

export type { Logger }

/** Paths whose values never reach a log line. */
export const REDACT_PATHS = [
  'password', '*.password', 'refresh_token', '*.refresh_token', 'access_token', '*.access_token',
  'authorization', '*.authorization', 'req.headers.authorization', 'req.headers.cookie',
  'headers.authorization', 'token', '*.token',
]

const ACCESS_TOKEN_IN_QUERY = /([?&]access_token=)[^&#]*/gi
/** `DELETE /auth/{refresh_token}` carries a refresh token in its path (below any base path). */
const REFRESH_TOKEN_IN_PATH = /^([^?#]*\/auth\/)[^/?#]+/i

/** Replaces the value of every `access_token` query parameter, and the refresh token of `/auth/{token}` paths. */
export function redactUrl (url: string): string {
  return url.replace(REFRESH_TOKEN_IN_PATH, '$1[Redacted]').replace(ACCESS_TOKEN_IN_QUERY, '$1[Redacted]')
}

export interface LoggerOptions {
  service: string
  level?: string
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

/** JSON lines to stdout; one logger per process, children everywhere else. */
export function createLogger (options: LoggerOptions): Logger {
  return pino(loggerOptions(options))
}
