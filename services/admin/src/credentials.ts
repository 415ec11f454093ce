import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { Writable } from 'node:stream'
import { CredentialsError, UsageError } from './usage-error.js'

/**
 * What the admin tool presents to the services: SERVICE_SECRET (every call needs a service token) and
 * an administrator's username and password, exchanged for an access token (administration RPCs need
 * one). The password comes from ADMIN_PASSWORD or a prompt on the terminal, never from the command line.
 */
export interface AdminCredentials {
  serviceSecret: string
  username: string
  password: string
}

/** SERVICE_SECRET, else the one `npm start` keeps in DATA_DIR. */
export function serviceSecret (env: NodeJS.ProcessEnv = process.env): string {
  if (env.SERVICE_SECRET) return env.SERVICE_SECRET
  const file = join(resolve(env.DATA_DIR || 'data'), 'service-secret')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  throw new CredentialsError('no service secret: set SERVICE_SECRET (or DATA_DIR to the directory npm start uses)')
}

/** Reads one line from the terminal without echoing it. */
export function promptHidden (question: string): Promise<string> {
  const muted = new Writable({ write: (_chunk, _enc, done) => done() })
  process.stderr.write(question)
  const rl = createInterface({ input: process.stdin, output: muted, terminal: true })
  return new Promise((res, rej) => {
    rl.once('line', (line) => { rl.close(); process.stderr.write('\n'); res(line) })
    rl.once('SIGINT', () => { rl.close(); rej(new UsageError('cancelled')) })
  })
}

/** A secret typed at the terminal, or the first line of stdin when it is not one (scripts pipe it in). */
export async function readSecret (question: string): Promise<string> {
  if (process.stdin.isTTY) return promptHidden(question)
  for await (const line of createInterface({ input: process.stdin })) return line
  throw new UsageError(`${question.replace(/:\s*$/, '')}: nothing on stdin`)
}

export async function adminCredentials (env: NodeJS.ProcessEnv = process.env): Promise<AdminCredentials> {
  const secret = serviceSecret(env)
  const username = env.ADMIN_USERNAME || 'admin'
  let password = env.ADMIN_PASSWORD
  if (!password) {
    if (!process.stdin.isTTY) throw new CredentialsError('set ADMIN_PASSWORD, or run in a terminal to be asked for the administrator\'s password')
    password = await promptHidden(`password of ${username}: `)
  }
  return { serviceSecret: secret, username, password }
}
