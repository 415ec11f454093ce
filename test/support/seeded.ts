import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { readsFixtures, USERS } from './reads-fixtures.js'
import { ADMIN, http, removeDir, ROOT, startSystem, type Reply, type RunningSystem } from './system.js'
import { ERROR_KEYS } from './answers.js'
import type { TokenData } from '@content/api-schema'

export type Role = 'anonymous' | 'member' | 'editor' | 'outsider' | 'admin'

export interface SeededSystem {
  system: RunningSystem
  /** fixture ref → object id */
  refs: Record<string, number>
  /** access tokens by role (anonymous has none) */
  tokens: Record<Exclude<Role, 'anonymous'>, string>
  /** a GET as `role`, Bearer header when it has a token */
  get: (path: string, role?: Role, headers?: Record<string, string>) => Promise<Reply>
  stop: () => Promise<void>
}

/**
 * The admin tool the way the README runs it: it finds the services and the service secret through
 * DATA_DIR, and acts as the administrator whose password is in ADMIN_PASSWORD; `input` is its stdin.
 */
export function admin (system: RunningSystem, ...args: string[]) {
  return adminWith(system, {}, ...args)
}

export function adminWith (system: RunningSystem, options: { input?: string, env?: Record<string, string> }, ...args: string[]) {
  const run = spawnSync('npm', ['run', '--silent', 'admin', '--', ...args], {
    cwd: ROOT, encoding: 'utf8', timeout: 60_000, input: options.input ?? '',
    env: { ...process.env, DATA_DIR: system.dataDir, ADMIN_PASSWORD: ADMIN.password, ...options.env },
  })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, lastLine: run.stdout.trim().split('\n').at(-1) ?? '' }
}

export async function login (base: string, username: string, password: string): Promise<TokenData> {
  const res = await http(base, 'POST', '/auth', { body: { username, password } })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.data
}

/** Starts the system, loads the reads fixtures with `npm run admin -- seed` and logs every user in. */
export async function startSeeded (env: Record<string, string> = {}): Promise<SeededSystem> {
  const system = await startSystem(env)
  const dir = mkdtempSync(join(tmpdir(), 'content-reads-'))
  try {
    const file = join(dir, 'fixtures.json')
    writeFileSync(file, JSON.stringify(readsFixtures()))
    const run = admin(system, 'seed', file)
    if (run.status !== 0) throw new Error(`seed failed: ${run.stderr}`)
    const refs = JSON.parse(run.lastLine) as Record<string, number>
    const token = async (u: { username: string, password: string }) => (await login(system.base, u.username, u.password)).access_token
    const tokens = {
      member: await token(USERS.member), editor: await token(USERS.editor),
      outsider: await token(USERS.outsider), admin: await token(ADMIN),
    }
    const get = (path: string, role: Role = 'anonymous', headers: Record<string, string> = {}) =>
      http(system.base, 'GET', path, { headers: role === 'anonymous' ? headers : { authorization: `Bearer ${tokens[role]}`, ...headers } })
    return {
      system, refs, tokens, get,
      async stop () {
        await system.stop()
        removeDir(system.dataDir)
      },
    }
  } catch (err) {
    await system.stop()
    removeDir(system.dataDir)
    throw err
  } finally {
    removeDir(dir)
  }
}

/** The error body of decisions §2, with this status and code. */
export function expectError (reply: Reply, status: number, code: string): void {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status)
  expect(Object.keys(reply.body)).toEqual(['error'])
  expect(Object.keys(reply.body.error).sort()).toEqual(ERROR_KEYS)
  expect(reply.body.error).toMatchObject({ status, code, more_info: `${new URL(reply.body.error.url).origin}/docs/errors#${code}` })
  expect(typeof reply.body.error.message).toBe('string')
}

/** The ids of a list answer, in order. */
export const idsOf = (reply: Reply): number[] => (reply.body.data.objects as { id: number }[]).map((o) => o.id)

/** Every page of a list, concatenated, checking each page's paging on the way. */
export async function allPages (seeded: SeededSystem, path: string, role: Role, pageSize: number): Promise<number[]> {
  const sep = path.includes('?') ? '&' : '?'
  const first = await seeded.get(`${path}${sep}page_size=${pageSize}`, role)
  expect(first.status).toBe(200)
  const { total, total_pages: pages } = first.body.paging
  expect(pages).toBe(Math.ceil(total / pageSize))
  const ids = idsOf(first)
  for (let page = 2; page <= pages; page++) {
    const res = await seeded.get(`${path}${sep}page_size=${pageSize}&page=${page}`, role)
    expect(res.body.paging).toMatchObject({ page, page_size: pageSize, total, total_pages: pages })
    expect(res.body.paging.page_count).toBe(res.body.data.objects.length)
    ids.push(...idsOf(res))
  }
  expect(ids.length).toBe(total)
  return ids
}

export const DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}$/
