import type { ObjectsStore, StoreOptions } from '../objects.store.js'

/**
 * The MongoDB adapter of the ObjectsStore port is not written yet. STORE=mongodb fails at start
 * with this message rather than serving from a half-built store; the contract suite
 * (test/integration/store.mongo.test.ts) is the bar it must pass.
 */
export async function openMongoStore (_url: string, _db: string, _options: StoreOptions): Promise<ObjectsStore> {
  throw new Error('STORE=mongodb: the MongoDB objects store is not implemented yet; use STORE=sqlite')
}
