import type { ApiKeyRecord, ApiKeysPort } from '../api-keys.store.js'
import { DURABLE, type ApiKeyDoc, type Collections } from './schema.mongo.js'

const toApiKey = (doc: ApiKeyDoc): ApiKeyRecord => ({
  id: doc._id, name: doc.name, groups: doc.groups, userId: doc.user_id, created: doc.created.getTime(),
  expiresAt: doc.expires_at?.getTime() ?? null, lastUsed: doc.last_used?.getTime() ?? null, secretHash: doc.secret_hash,
})

/** API keys in MongoDB (`api_keys`); a user's keys are removed with the user (users.mongo.ts). */
export function apiKeysPort (c: Collections): ApiKeysPort {
  return {
    async create (key) {
      // an owner removed between this look and the insert leaves a key no exchange accepts (it checks the owner)
      if (await c.users.countDocuments({ _id: key.userId }) === 0) return 'unknown_user'
      const doc: ApiKeyDoc = {
        _id: key.id, name: key.name, secret_hash: key.secretHash, user_id: key.userId, groups: key.groups,
        created: new Date(key.created), expires_at: key.expiresAt === null ? null : new Date(key.expiresAt), last_used: null,
      }
      await c.apiKeys.insertOne(doc, DURABLE)
      return toApiKey(doc)
    },
    async get (id) {
      const doc = await c.apiKeys.findOne({ _id: id })
      return doc ? toApiKey(doc) : null
    },
    async list () { return (await c.apiKeys.find().sort({ created: -1, _id: 1 }).toArray()).map(toApiKey) },
    async remove (id) { return (await c.apiKeys.deleteOne({ _id: id }, DURABLE)).deletedCount === 1 },
    async touch (id, at) { await c.apiKeys.updateOne({ _id: id }, { $set: { last_used: new Date(at) } }) },
  }
}
