// What the services print, as the person at the terminal wants it: pino's JSON lines made readable and
// coloured when stdout is a terminal (LOG_FORMAT=pretty|json overrides); otherwise the services write to
// the launcher's stdout themselves (start.mjs), and only auth's lines pass through here, untouched; the admin password a fresh auth store generates is held back for the closing banner, where
// log lines do not scroll it away.
import { createInterface } from 'node:readline'
import pinoPretty from 'pino-pretty'

const PASSWORD_LINE = 'admin password (shown once): '

export function logFormat (env, stdout) {
  if (env.LOG_FORMAT === 'pretty' || env.LOG_FORMAT === 'json') return env.LOG_FORMAT
  return stdout.isTTY ? 'pretty' : 'json'
}

/** Writes a child's stdout lines to `out` in `format`; resolves the generated password through `onPassword`. */
export function relayOutput (stream, { format, out, onPassword }) {
  const pretty = format === 'pretty'
    ? pinoPretty.prettyFactory({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service', messageFormat: '{service}: {msg}', singleLine: true })
    : undefined
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
    if (line.startsWith(PASSWORD_LINE)) return onPassword(line.slice(PASSWORD_LINE.length).trim())
    out.write(pretty ? pretty(line) : `${line}\n`)
  })
}

/** The closing lines: where the API is, and the generated password when there is one. */
export function banner ({ base, password, metrics }) {
  const lines = [`content objects API ready at ${base}/`, `  reference: ${base}/docs`]
  if (metrics) lines.push(`  metrics: ${Object.entries(metrics).map(([name, url]) => `${name} ${url}`).join(', ')}`)
  if (password) {
    lines.push('', `  admin password (generated, shown once): ${password}`, '  log in as admin with it; it is not stored anywhere in clear')
  }
  return `${lines.join('\n')}\n`
}
