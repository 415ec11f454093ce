import type * as grpc from '@grpc/grpc-js'
import type { ObjectsStore } from '../core/ports.js'

type Unary = (request: unknown, call: unknown) => Promise<unknown>

/**
 * Every unary answer of a service leaves only once what it saw is on disk (`store.durable`): a write's
 * own commit, and any other write's a read looked at. With the SQLite store's group commit this waits
 * for the flush in progress, or none when nothing was committed since the last one. Streams are left
 * alone (the change feed tells events once they are durable itself).
 */
export function answeredWhenDurable<T extends object> (definition: grpc.ServiceDefinition, impl: T, store: Pick<ObjectsStore, 'durable'>): T {
  const out: Record<string, unknown> = { ...(impl as Record<string, unknown>) }
  for (const [method, def] of Object.entries(definition)) {
    const fn = (impl as Record<string, unknown>)[method]
    if (def.requestStream || def.responseStream || typeof fn !== 'function') continue
    out[method] = async (request: unknown, call: unknown) => {
      const answer = await (fn as Unary)(request, call)
      await store.durable()
      return answer
    }
  }
  return out as T
}
