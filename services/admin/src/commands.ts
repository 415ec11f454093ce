import { UsageError } from './usage-error.js'
import type { AdminClients } from './clients.js'
import type { Printed } from './printed.js'

export interface UserOptions {
  password: string
  groups: string[]
  name: string
  email: string
  card_id?: number
}

export async function addUser (clients: AdminClients, username: string, options: UserOptions): Promise<Printed> {
  const user = await clients.auth.CreateUser({ username, ...options })
  return {
    text: `user ${user.username} created with id ${user.id} (groups: ${user.groups.join(', ') || 'none'})`,
    json: { id: user.id, username: user.username, groups: user.groups },
  }
}

export async function addGroup (clients: AdminClients, name: string, backend: boolean): Promise<Printed> {
  const group = await clients.auth.CreateGroup({ name, backend_auth: backend })
  return { text: `group ${group.name} created${group.backend_auth ? ' (may write)' : ''}`, json: { name: group.name, backend_auth: group.backend_auth } }
}

export interface PermissionOptions {
  read: string[]
  write: string[]
}

/** Replaces an object's read and write groups; empty lists make it public and writable by every writer. */
export async function setPermissions (clients: AdminClients, objectId: string, options: PermissionOptions): Promise<Printed> {
  const known = new Set((await clients.auth.ListGroups({})).groups.map((g) => g.name))
  const unknown = [...options.read, ...options.write].filter((name) => !known.has(name))
  if (unknown.length) throw new UsageError(`unknown group${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`)
  await clients.objects.SetPermissions({ object_id: objectId, read_groups: options.read, write_groups: options.write })
  const read = options.read.length ? `readable by ${options.read.join(', ')}` : 'public'
  const write = options.write.length ? `writable by ${options.write.join(', ')}` : 'writable by every writing group'
  return { text: `object ${objectId}: ${read}; ${write}`, json: { object: objectId, read: options.read, write: options.write } }
}
