import { createHash } from 'node:crypto'
import { expect } from 'vitest'
import { getBytes } from './media.js'
import { admin } from './seeded.js'
import { ADMIN, http, type RunningSystem } from './system.js'

/** Every answer of a system that a move must keep, by request, with ids and addresses made comparable. */
export type Answers = Map<string, unknown>

const ID_KEYS = new Set(['id', 'object_id', 'related_id', 'child_id', 'card_id'])
const DROPPED = new Set(['created', 'modified'])

/** Ids become nicknames (a move may renumber), the base URL a placeholder, signatures and times dropped. */
function normalise (value: unknown, base: string, nick: (id: number) => string, key = ''): unknown {
  if (typeof value === 'number' && ID_KEYS.has(key)) return nick(value)
  // error messages name objects by id
  if (typeof value === 'string' && key === 'message') return value.replace(/\b\d+\b/g, (d) => nick(Number(d)))
  if (typeof value === 'string') {
    return value.split(base).join('<base>')
      .replace(/\/(objects|media|children)\/(\d+)/g, (_m, kind: string, id: string) => `/${kind}/${nick(Number(id))}`)
      .replace(/(\/media\/[^?]*)\?.*$/, '$1')
  }
  if (Array.isArray(value)) return value.map((v) => normalise(v, base, nick, key === 'parent_ids' ? 'id' : ''))
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([k]) => !DROPPED.has(k)).map(([k, v]) => [k, normalise(v, base, nick, k)]))
  }
  return value
}

/**
 * Reads, as the administrator (drafts included) and anonymously, every object of NICKNAMES with its
 * relations, children and their positions, and the bytes of its file; the public list; the users.
 */
export async function answersOf (system: RunningSystem, nicknames: string[]): Promise<Answers> {
  const token = (await http(system.base, 'POST', '/auth', { body: ADMIN })).body.data.access_token as string
  const auth = { authorization: `Bearer ${token}` }
  const ids = new Map<number, string>()
  for (const n of nicknames) {
    const res = await http(system.base, 'GET', `/objects/${n}?status=draft`, { headers: auth })
    if (res.status === 200) ids.set(res.body.data.object.id as number, n)
  }
  const nick = (id: number) => ids.get(id) ?? `#${id}`
  const answers: Answers = new Map()
  /** `named`: the request as the answers name it, when its path holds an id (ids may differ, nicknames not) */
  const read = async (path: string, headers: Record<string, string> = auth, named = path) => {
    const res = await http(system.base, 'GET', path, { headers })
    answers.set(`${headers === auth ? 'admin' : 'anonymous'} ${named}`, { status: res.status, body: normalise(res.body, system.base, nick) })
    return res
  }
  for (const n of nicknames) {
    const one = await read(`/objects/${n}?status=draft`)
    await read(`/objects/${n}`, {})
    if (one.status !== 200) continue
    const object = one.body.data.object
    for (const name of Object.keys(object.relations)) await read(`/objects/${n}/relations/${name}?status=draft`)
    if (object.children) {
      const children = await read(`/objects/${n}/children?status=draft&page_size=100`)
      for (const child of children.body.data.objects as { id: number }[]) await read(`/objects/${n}/children/${child.id}`, auth, `/objects/${n}/children/${nick(child.id)}`)
    }
    if (typeof object.uri === 'string') {
      const file = await getBytes(object.uri, auth)
      answers.set(`bytes ${n}`, { status: file.status, sha256: createHash('sha256').update(file.bytes).digest('hex'), type: file.headers.get('content-type') })
    }
  }
  await read('/objects?page_size=100', {})
  await read('/objects?page_size=100&status=draft')
  const users = admin(system, 'users', 'list', '--json')
  expect(users.status, users.stderr).toBe(0)
  answers.set('users', (JSON.parse(users.lastLine) as Record<string, unknown>[]).map(({ id: _id, created: _created, card_id, ...u }) => ({ ...u, card: card_id === null ? null : nick(card_id as number) })))
  const groups = admin(system, 'groups', 'list', '--json')
  answers.set('groups', JSON.parse(groups.lastLine))
  return answers
}

/** Each answer of `actual` equals the one of `expected`, named by its request when it does not. */
export function expectSameAnswers (actual: Answers, expected: Answers): void {
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort())
  for (const [request, answer] of expected) expect(actual.get(request), request).toEqual(answer)
}
