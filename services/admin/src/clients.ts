import { createClient } from '@content/platform'
import { loadContentProtos, type v1 } from '@content/protos'
import type { Addresses } from './addresses.js'

export interface AdminClients {
  objects: ReturnType<typeof createClient<v1.ObjectServiceDefinition>>
  auth: ReturnType<typeof createClient<v1.AuthServiceDefinition>>
  poster: ReturnType<typeof createClient<v1.PosterServiceDefinition, v1.PosterServiceClient>>
  webhooks: ReturnType<typeof createClient<v1.WebhookServiceDefinition>>
  close(): void
}

/** A fixtures import (and its files) can be large: a generous deadline, but still a deadline. */
export const ADMIN_TIMEOUT_MS = 120_000

export function connect (addresses: Addresses): AdminClients {
  const { content } = loadContentProtos()
  const settings = { timeoutMs: ADMIN_TIMEOUT_MS }
  const objects = createClient<v1.ObjectServiceDefinition>(content.v1.ObjectService, addresses.objects, settings)
  const auth = createClient<v1.AuthServiceDefinition>(content.v1.AuthService, addresses.auth, settings)
  const poster = createClient<v1.PosterServiceDefinition, v1.PosterServiceClient>(content.v1.PosterService, addresses.poster, settings)
  const webhooks = createClient<v1.WebhookServiceDefinition>(content.v1.WebhookService, addresses.objects, settings)
  return { objects, auth, poster, webhooks, close: () => { objects.close(); auth.close(); poster.close(); webhooks.close() } }
}
