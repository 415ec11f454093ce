import { createClient } from '@content/platform'
import { loadContentProtos, type v1 } from '@content/protos'
import type { Addresses } from './addresses.js'
import type { AdminCredentials } from './credentials.js'

export interface AdminClients {
  objects: ReturnType<typeof createClient<v1.ObjectServiceDefinition>>
  tree: ReturnType<typeof createClient<v1.TreeServiceDefinition>>
  auth: ReturnType<typeof createClient<v1.AuthServiceDefinition>>
  poster: ReturnType<typeof createClient<v1.PosterServiceDefinition, v1.PosterServiceClient>>
  webhooks: ReturnType<typeof createClient<v1.WebhookServiceDefinition>>
  /** the administrator's access token, for streaming calls (unary ones carry it already) */
  userToken: string
  close(): void
}

/** A fixtures import (and its files) can be large: a generous deadline, but still a deadline. */
export const ADMIN_TIMEOUT_MS = 120_000

/**
 * Connects as the `admin` service and logs the administrator in; every call then acts for them. The
 * clients use the channel of long calls, without keepalive pings (`STREAM_CHANNEL_OPTIONS`): the objects
 * service answers no ping while it imports a file in one transaction, and a client whose ping went
 * unanswered for 10 s drops the connection and fails the import. Each call's deadline bounds it instead.
 */
export async function connect (addresses: Addresses, credentials: AdminCredentials): Promise<AdminClients> {
  const { content } = loadContentProtos()
  const service = { timeoutMs: ADMIN_TIMEOUT_MS, identity: { name: 'admin', secret: credentials.serviceSecret }, channel: 'stream' as const }
  const login = createClient<v1.AuthServiceDefinition>(content.v1.AuthService, addresses.auth, service)
  const pair = await login.Login({ username: credentials.username, password: credentials.password, client_address: '' }).finally(() => login.close())
  const settings = { ...service, userToken: pair.access_token }
  const objects = createClient<v1.ObjectServiceDefinition>(content.v1.ObjectService, addresses.objects, settings)
  const tree = createClient<v1.TreeServiceDefinition>(content.v1.TreeService, addresses.objects, settings)
  const auth = createClient<v1.AuthServiceDefinition>(content.v1.AuthService, addresses.auth, settings)
  const poster = createClient<v1.PosterServiceDefinition, v1.PosterServiceClient>(content.v1.PosterService, addresses.poster, settings)
  const webhooks = createClient<v1.WebhookServiceDefinition>(content.v1.WebhookService, addresses.objects, settings)
  return {
    objects, tree, auth, poster, webhooks, userToken: pair.access_token,
    close: () => { objects.close(); tree.close(); auth.close(); poster.close(); webhooks.close() },
  }
}
