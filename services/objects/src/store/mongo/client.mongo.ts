import type { MongoClientOptions } from 'mongodb'

/**
 * How long the objects service's MongoDB client waits, at most: no call waits on an unreachable or
 * stuck server past the gateway's deadlines by much. A primary not found within 5 s (the driver's own
 * default is 30 s), a connection not made or not free in the pool within 5 s, a socket silent for 30 s
 * (above any query of the service; a change stream's wait for events returns each second) fail the call
 * instead of holding it. The client-wide `timeoutMS` is not used: this driver (7.x) documents it as
 * deprecated, with no effect.
 */
export const MONGO_CLIENT_OPTIONS: MongoClientOptions = {
  appName: 'content-objects',
  serverSelectionTimeoutMS: 5_000,
  connectTimeoutMS: 5_000,
  waitQueueTimeoutMS: 5_000,
  socketTimeoutMS: 30_000,
}
