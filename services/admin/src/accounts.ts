import type { v1 } from '@content/protos'
import { present } from '@content/platform'
import type { AdminClients } from './clients.js'
import type { Printed } from './printed.js'
import { UsageError } from './usage-error.js'

// Account lifecycle and API keys. Users are named by username on the command line; the services
// address them by id, so each command looks the name up first.

const when = (ms: number | string) => (Number(ms) > 0 ? new Date(Number(ms)).toISOString() : null)

const userJson = (u: v1.User__Output) => ({
  id: Number(u.id), username: u.username, name: u.name, email: u.email, groups: u.groups, disabled: u.disabled,
  created: when(u.created), card_id: u.card_id === undefined ? null : Number(u.card_id),
})

const userLine = (u: ReturnType<typeof userJson>) =>
  `${String(u.id).padStart(4)}  ${u.username}${u.disabled ? ' (disabled)' : ''}  groups: ${u.groups.join(', ') || 'none'}`

const keyJson = (k: v1.ApiKey__Output) => ({
  id: k.id, name: k.name, groups: k.groups, user_id: Number(k.user_id), created: when(k.created),
  expires_at: when(k.expires_at), last_used: when(k.last_used),
})

async function userNamed (clients: AdminClients, username: string): Promise<v1.User__Output> {
  const user = (await clients.auth.ListUsers({})).users.find((u) => u.username === username)
  if (!user) throw new Error(`no user named ${username}`)
  return user
}

export async function listUsers (clients: AdminClients): Promise<Printed> {
  const users = (await clients.auth.ListUsers({})).users.map(userJson)
  return { text: users.map(userLine).join('\n') || 'no users', json: users }
}

export async function showUser (clients: AdminClients, username: string): Promise<Printed> {
  const user = userJson(await userNamed(clients, username))
  const lines = [userLine(user), `      name: ${user.name || '-'}  email: ${user.email || '-'}  created: ${user.created}${user.card_id ? `  card: ${user.card_id}` : ''}`]
  return { text: lines.join('\n'), json: user }
}

export async function setPassword (clients: AdminClients, username: string, password: string): Promise<Printed> {
  const user = await userNamed(clients, username)
  await clients.auth.SetPassword({ user_id: user.id, password })
  return { text: `password of ${username} changed; its earlier logins can no longer refresh`, json: { id: Number(user.id), username } }
}

export async function setDisabled (clients: AdminClients, username: string, disabled: boolean): Promise<Printed> {
  const user = userJson(await clients.auth.SetDisabled({ user_id: (await userNamed(clients, username)).id, disabled }))
  return { text: `${username} ${disabled ? 'disabled: it can no longer log in, refresh, or use its API keys' : 'enabled'}`, json: user }
}

export async function deleteUser (clients: AdminClients, username: string): Promise<Printed> {
  const user = await userNamed(clients, username)
  await clients.auth.DeleteUser({ user_id: user.id })
  return { text: `user ${username} deleted, with its API keys; its logins can no longer refresh`, json: { id: Number(user.id), username, deleted: true } }
}

export async function listGroups (clients: AdminClients): Promise<Printed> {
  const groups = (await clients.auth.ListGroups({})).groups.map((g) => ({ name: g.name, backend_auth: g.backend_auth }))
  return { text: groups.map((g) => `${g.name}${g.backend_auth ? ' (may write)' : ''}`).join('\n') || 'no groups', json: groups }
}

const DURATION = /^(\d{1,5})([dh])$/

/** `--expires`: a duration (`90d`, `12h`) from now or a date (`2027-01-31`); undefined = never. */
export function expiryOf (value: string | undefined, now: number): number {
  if (value === undefined) return 0
  const duration = DURATION.exec(value)
  if (duration) return now + Number(duration[1]) * (duration[2] === 'd' ? 86_400_000 : 3_600_000)
  const date = /^\d{4}-\d\d-\d\d(T[\d:.]+(Z|[+-]\d\d:\d\d)?)?$/.test(value) ? Date.parse(value) : NaN
  if (Number.isNaN(date) || date <= now) throw new UsageError('--expires takes a duration (90d, 12h) or a future date (2027-01-31)')
  return date
}

export interface KeyOptions { name: string, groups: string[], expiresAt: number, owner: string | undefined }

export async function createKey (clients: AdminClients, options: KeyOptions): Promise<Printed> {
  const userId = options.owner === undefined ? 0 : (await userNamed(clients, options.owner)).id
  const created = await clients.auth.CreateApiKey({ name: options.name, groups: options.groups, expires_at: options.expiresAt, user_id: userId })
  const key = keyJson(present(created.key, 'the created key'))
  return {
    text: [
      `API key ${key.id} (${key.name}) created for user ${key.user_id}, groups: ${key.groups.join(', ') || 'none'}, expires: ${key.expires_at ?? 'never'}`,
      'the key, shown this once (send it as Authorization: Bearer <key>):',
      created.secret,
    ].join('\n'),
    json: { ...key, key: created.secret },
  }
}

export async function listKeys (clients: AdminClients): Promise<Printed> {
  const keys = (await clients.auth.ListApiKeys({})).keys.map(keyJson)
  const line = (k: ReturnType<typeof keyJson>) =>
    `${k.id}  ${k.name}  user ${k.user_id}  groups: ${k.groups.join(', ') || 'none'}  expires: ${k.expires_at ?? 'never'}  last used: ${k.last_used ?? 'never'}`
  return { text: keys.map(line).join('\n') || 'no API keys', json: keys }
}

export async function revokeKey (clients: AdminClients, id: string): Promise<Printed> {
  await clients.auth.RevokeApiKey({ id })
  return { text: `API key ${id} revoked`, json: { id, revoked: true } }
}
