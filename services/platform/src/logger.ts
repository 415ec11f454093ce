import { pino, type DestinationStream, type Logger } from 'pino'

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
 * A URL that `redactUrl` would give back unchanged: slash-separated non-empty segments and `key=value`
 * pairs of characters `encodeURIComponent` keeps, with no word that could name a secret or the auth
 * route. Most requests are such URLs, so their log line costs one test of this expression.
 */
const PLAIN = /^(?:\/[\w.~!*'()-]+)+(?:\?[\w.~!*'()-]+=[\w.~!*'()-]*(?:&[\w.~!*'()-]+=[\w.~!*'()-]*)*)?$/
const MAY_NAME_A_SECRET = /auth|token|password|secret/i

/**
 * The URL for a log line, rebuilt from its parsed, decoded path and query, so that no spelling of a token
 * reaches a log: every segment after an `auth` segment (`DELETE /auth/{refresh_token}`, below any base
 * path) and the value of every query parameter whose decoded name names a secret are replaced. A path
 * that does not decode is not logged at all. A plain URL (above) is its own rebuild and is kept as it is.
 */
export function redactUrl (url: string): string {
  return PLAIN.test(url) && !MAY_NAME_A_SECRET.test(url) ? url : rebuiltUrl(url)
}

/** redactUrl's answer for any URL, the long way. */
export function rebuiltUrl (url: string): string {
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
  /** or this stream (a test reading the lines) */
  stream?: { write: (line: string) => unknown }
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

/**
 * Bytes gathered before a write to stdout, and the longest a line waits for them. A write per line (the
 * synchronous default) cost a service a syscall per request; lines in 64 KiB writes cost one per few
 * hundred requests, and a quiet service still shows each line within a tenth of a second.
 */
export const LOG_BUFFER_BYTES = 64 * 1024
export const LOG_FLUSH_MS = 100
/** Past this many bytes waiting (stdout stalled), lines are dropped rather than held without bound. */
const LOG_BUFFER_LIMIT = 16 * 1024 * 1024

type Destination = ReturnType<typeof pino.destination>

/**
 * The buffered destination keeps its lines as Buffers: kept as text, it measures the UTF-8 length of its
 * whole pending chunk at every line, which cost a line 2.5 µs of CPU in 4 KiB writes and more in larger
 * ones, against 0.75 µs as bytes (`loadtest/README.md`, "Lines kept as bytes"). pino writes text, so each
 * line becomes bytes here, once.
 */
function asBytes (dest: Destination): DestinationStream & Pick<Destination, 'flush' | 'flushSync'> {
  return {
    // sonic-boom's types name text only; in its buffer mode it takes Buffers
    write: (line: string) => dest.write(Buffer.from(line) as unknown as string),
    flush: (cb) => dest.flush(cb),
    flushSync: () => dest.flushSync(),
  }
}

let stdoutLines: ReturnType<typeof asBytes> | undefined

/**
 * JSON lines to stdout, buffered (or to stderr, unbuffered); one logger per process, children everywhere
 * else. Every logger writing to stdout shares the process's one buffered destination, so their lines
 * never split one another. pino writes what is buffered synchronously when the process exits
 * (process.exit included); an uncaught exception or unhandled rejection is logged as fatal by the first
 * logger and written out before Node reports it and exits.
 */
export function createLogger (options: CreateLoggerOptions): Logger {
  if (options.stream) return pino(loggerOptions(options), options.stream)
  if (options.fd === 2) return pino(loggerOptions(options), pino.destination(2))
  if (stdoutLines) return pino(loggerOptions(options), stdoutLines)
  const dest = asBytes(pino.destination({
    dest: 1, sync: false, contentMode: 'buffer', minLength: LOG_BUFFER_BYTES, maxWrite: 4 * LOG_BUFFER_BYTES, maxLength: LOG_BUFFER_LIMIT, periodicFlush: LOG_FLUSH_MS,
  }))
  const log = pino(loggerOptions(options), dest)
  // a monitor leaves Node's own report and exit code as they are
  process.on('uncaughtExceptionMonitor', (err, origin) => {
    log.fatal({ err, origin }, 'uncaught exception')
    try { dest.flushSync() } catch { /* stdout itself is gone: nothing more can be said */ }
  })
  stdoutLines = dest
  return log
}

/**
 * A writer of info lines whose fields the caller has already written as JSON (`"key":value,…`), to where
 * `log` writes and shaped as pino shapes its own (level, time, bindings, fields, msg); null below info.
 * For a line written on every request whose every field is the service's own, never a caller's object
 * (the gateway's access line): pino's call walks an object through its serializers, 1.6–2.6 µs a line
 * against 0.4–0.6 here (`loadtest/README.md`, "What the access log cost").
 */
export function infoLines (log: Logger, msg: string): ((fields: string) => void) | null {
  if (!log.isLevelEnabled('info')) return null
  const stream = (log as unknown as Record<symbol, DestinationStream | undefined>)[pino.symbols.streamSym]
  if (stream === undefined) throw new Error('infoLines: a pino logger without its stream')
  const bindings = JSON.stringify(log.bindings()).slice(1, -1)
  const head = `{"level":${pino.levels.values.info},"time":`
  const afterTime = bindings === '' ? ',' : `,${bindings},`
  const tail = `"msg":${JSON.stringify(msg)}}\n`
  return (fields) => { stream.write(`${head}${Date.now()}${afterTime}${fields}${fields === '' ? '' : ','}${tail}`) }
}
