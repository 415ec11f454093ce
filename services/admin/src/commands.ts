import type { AdminClients } from './clients.js'

export interface UserOptions {
  password: string
  groups: string[]
  name: string
  email: string
}

export async function addUser (clients: AdminClients, username: string, options: UserOptions): Promise<string> {
  const user = await clients.auth.CreateUser({ username, ...options })
  return `user ${user.username} created with id ${user.id} (groups: ${user.groups.join(', ') || 'none'})`
}

export async function addGroup (clients: AdminClients, name: string, backend: boolean): Promise<string> {
  const group = await clients.auth.CreateGroup({ name, backend_auth: backend })
  return `group ${group.name} created${group.backend_auth ? ' (may write)' : ''}`
}
