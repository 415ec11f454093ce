import { createClient } from '@content/platform'
import { loadContentProtos, type v1 } from '@content/protos'
import type { Addresses } from './addresses.js'

export interface AdminClients {
  objects: ReturnType<typeof createClient<v1.ObjectServiceDefinition>>
  auth: ReturnType<typeof createClient<v1.AuthServiceDefinition>>
  close(): void
}

/** A fixtures import can be large: a generous deadline, but still a deadline. */
const ADMIN_TIMEOUT_MS = 120_000

export function connect (addresses: Addresses): AdminClients {
  const { content } = loadContentProtos()
  const objects = createClient<v1.ObjectServiceDefinition>(content.v1.ObjectService, addresses.objects, { timeoutMs: ADMIN_TIMEOUT_MS })
  const auth = createClient<v1.AuthServiceDefinition>(content.v1.AuthService, addresses.auth, { timeoutMs: ADMIN_TIMEOUT_MS })
  return { objects, auth, close: () => { objects.close(); auth.close() } }
}
