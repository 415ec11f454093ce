import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { ADMIN, http, removeDir, ROOT, type Reply } from './system.js'
import { ERROR_KEYS } from './answers.js'
import type { Envelope, ObjectData, ObjectListData, Paging } from '@content/api-schema'
import { must } from './must.js'

/** Asserts the error body of decisions §2 with this status and code; answers its details. */
export function expectError (reply: Reply, status: number, code: string): Reply['body'] {
  expect({ status: reply.status, body: reply.body }).toMatchObject({ status, body: { error: { status, code } } })
  expect(Object.keys(reply.body)).toEqual(['error'])
  expect(Object.keys(reply.body.error).sort()).toEqual(ERROR_KEYS)
  return reply.body.error.details
}

/** Loads a fixtures file with the admin tool (it finds the services and their secret through DATA_DIR) as the administrator. */
export function seed (dataDir: string, fixtures: unknown): Record<string, number> {
  const dir = mkdtempSync(join(tmpdir(), 'content-writes-'))
  try {
    const file = join(dir, 'fixtures.json')
    writeFileSync(file, JSON.stringify(fixtures))
    const run = spawnSync(process.execPath, ['services/admin/dist/main.js', 'seed', file], {
      cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, DATA_DIR: dataDir, ADMIN_PASSWORD: ADMIN.password },
    })
    if (run.status !== 0) throw new Error(`seed failed: ${run.stderr}`)
    return JSON.parse(must(run.stdout.trim().split('\n').at(-1))) as Record<string, number>
  } finally {
    removeDir(dir)
  }
}

/** Users of the write tests: an editor, an editor of the `desk` group, a member who may not write. */
export const PEOPLE = {
  ed: { username: 'ed', password: 'ed-password-123', groups: ['editor'] },
  desk: { username: 'deskie', password: 'desk-password-123', groups: ['editor', 'desk'] },
  member: { username: 'member', password: 'member-password-123', groups: ['members'] },
}

export const BASE_FIXTURES = {
  groups: [{ name: 'members', backend_auth: false }, { name: 'desk', backend_auth: false }],
  users: Object.values(PEOPLE),
  categories: [{ name: 'culture-cat', label: 'Culture' }],
  objects: [
    { ref: 'locked', object_type: 'document', title: 'Locked', nickname: 'locked', parents: ['@publication'], permissions: { write: ['desk'] } },
    { ref: 'secret', object_type: 'document', title: 'Secret', nickname: 'secret', parents: ['@publication'], permissions: { read: ['members'] } },
    { ref: 'vault', object_type: 'section', title: 'Vault', nickname: 'vault', parents: ['@publication'], permissions: { read: ['members'] } },
    { ref: 'stray', object_type: 'image', title: 'Stray', nickname: 'stray' },
    { ref: 'gallery', object_type: 'gallery', title: 'Gallery', nickname: 'gallery', parents: ['@publication'] },
  ],
}

/** Ids of the BASE_FIXTURES objects, by ref. */
export type BaseRefs = Record<'locked' | 'secret' | 'vault' | 'stray' | 'gallery', number>

export interface Client {
  get: (path: string) => Promise<Reply>
  post: (path: string, data: unknown) => Promise<Reply>
  put: (path: string, data: unknown) => Promise<Reply>
  del: (path: string) => Promise<Reply>
  raw: (method: string, path: string, body: string, contentType: string) => Promise<Reply>
}

/** A client that sends `{data}` bodies with a bearer token (none when token is empty). */
export function client (base: string, token: string): Client {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {}
  return {
    get: (path) => http(base, 'GET', path, { headers }),
    post: (path, data) => http(base, 'POST', path, { headers, body: { data } }),
    put: (path, data) => http(base, 'PUT', path, { headers, body: { data } }),
    del: (path) => http(base, 'DELETE', path, { headers }),
    raw: (method, path, body, contentType) => http(base, method, path, { headers: { ...headers, 'content-type': contentType }, raw: body }),
  }
}

export async function login (base: string, who: { username: string, password: string } = ADMIN): Promise<string> {
  const res = await http(base, 'POST', '/auth', { body: { username: who.username, password: who.password } })
  expect(res.status).toBe(200)
  return res.body.data.access_token as string
}

/** Ids of a whole list (every page). */
export async function listIds (c: Client, path: string): Promise<number[]> {
  const ids: number[] = []
  for (let page = 1; ; page++) {
    const res = await c.get(`${path}${path.includes('?') ? '&' : '?'}page=${page}&page_size=100`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const list = res.body as Envelope<ObjectListData> & { paging: Paging }
    ids.push(...list.data.objects.map((o) => o.id))
    if (page >= (list.paging.total_pages ?? 0)) return ids
  }
}

/** Creates an object and answers its id. */
export async function create (c: Client, data: Record<string, unknown>): Promise<number> {
  const res = await c.post('/objects', data)
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return (res.body as Envelope<ObjectData>).data.object.id
}
