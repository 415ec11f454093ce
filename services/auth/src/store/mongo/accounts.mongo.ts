import { MongoServerError, type ClientSession, type Db, type MongoClient } from 'mongodb'
import { present } from '@content/platform'
import {
  ImportConflictError, sortedGroups,
  type AccountsStore, type ApiKeyRecord, type GroupRecord, type NewUser, type UserRecord,
} from '../accounts.store.js'

interface UserDoc {
  _id: number
  username: string
  password_hash: string
  name: string
  email: string
  groups: string[]
  created: Date
  card_id: number | null
  disabled: boolean
  /** absent on users written before it existed: 0 */
  sessions_since?: number
}
interface ApiKeyDoc {
  _id: string
  name: string
  secret_hash: string
  user_id: number
  groups: string[]
  created: Date
  expires_at: Date | null
  last_used: Date | null
}
interface GroupDoc { name: string, backend_auth: boolean }
interface CounterDoc { _id: string, seq: number }

/** Every acknowledged write is on a majority of the replica set and in its journal. */
const DURABLE = { writeConcern: { w: 'majority' as const, j: true } }
/** Inside a transaction the commit carries the write concern; single operations may not set one. */
const writeOptions = (session?: ClientSession) => session ? { session } : DURABLE
const DUPLICATE_KEY = 11000

const isDuplicate = (err: unknown) => err instanceof MongoServerError && err.code === DUPLICATE_KEY

function toUser (doc: UserDoc): UserRecord {
  return {
    id: doc._id, username: doc.username, name: doc.name, email: doc.email, groups: sortedGroups(doc.groups),
    created: doc.created.getTime(), cardId: doc.card_id, disabled: doc.disabled, passwordHash: doc.password_hash,
    sessionsSince: doc.sessions_since ?? 0,
  }
}

const toApiKey = (doc: ApiKeyDoc): ApiKeyRecord => ({
  id: doc._id, name: doc.name, groups: doc.groups, userId: doc.user_id, created: doc.created.getTime(),
  expiresAt: doc.expires_at?.getTime() ?? null, lastUsed: doc.last_used?.getTime() ?? null, secretHash: doc.secret_hash,
})

/**
 * Users and groups in MongoDB (`users`, `groups`, and `counters` for the id sequence). Imports run in
 * a transaction, which needs a replica set (a single-node one will do).
 */
export async function createMongoAccountsStore (client: MongoClient, db: Db, now: () => number = Date.now): Promise<AccountsStore> {
  const users = db.collection<UserDoc>('users')
  const groups = db.collection<GroupDoc>('groups')
  const counters = db.collection<CounterDoc>('counters')
  const apiKeys = db.collection<ApiKeyDoc>('api_keys')
  await users.createIndex({ username: 1 }, { unique: true })
  await groups.createIndex({ name: 1 }, { unique: true })

  const nextId = async (session?: ClientSession) => {
    const doc = await counters.findOneAndUpdate(
      { _id: 'users' }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after', ...writeOptions(session) },
    )
    return present(doc, 'the users counter').seq
  }
  const missingGroups = async (names: string[], session?: ClientSession) => {
    const found = await groups.find({ name: { $in: names } }, { session }).map((g) => g.name).toArray()
    return names.filter((n) => !found.includes(n))
  }
  const insertUser = async (user: NewUser, session?: ClientSession) => {
    const doc: UserDoc = {
      _id: await nextId(session), username: user.username, password_hash: user.passwordHash, name: user.name,
      email: user.email, groups: sortedGroups(user.groups), created: new Date(now()), card_id: user.cardId,
      disabled: user.disabled ?? false,
    }
    await users.insertOne(doc, writeOptions(session))
    return doc
  }

  return {
    users: {
      async create (user) {
        if ((await missingGroups(sortedGroups(user.groups))).length > 0) return 'unknown_groups'
        try {
          return toUser(await insertUser(user))
        } catch (err) {
          if (isDuplicate(err)) return 'taken'
          throw err
        }
      },
      async get (id) {
        const doc = await users.findOne({ _id: id })
        return doc ? toUser(doc) : null
      },
      async findByUsername (username) {
        const doc = await users.findOne({ username })
        return doc ? toUser(doc) : null
      },
      async existing (usernames) {
        return users.find({ username: { $in: usernames } }).map((u) => u.username).toArray()
      },
      async setDisabled (id, disabled, at) {
        const set = disabled ? { disabled, sessions_since: at } : { disabled }
        return (await users.updateOne({ _id: id }, { $set: set }, DURABLE)).matchedCount === 1
      },
      async setPassword (id, passwordHash, at) {
        return (await users.updateOne({ _id: id }, { $set: { password_hash: passwordHash, sessions_since: at } }, DURABLE)).matchedCount === 1
      },
      async remove (id) {
        const session = client.startSession()
        try {
          let removed = false
          await session.withTransaction(async () => {
            removed = (await users.deleteOne({ _id: id }, { session })).deletedCount === 1
            await apiKeys.deleteMany({ user_id: id }, { session })
          }, DURABLE)
          return removed
        } finally {
          await session.endSession()
        }
      },
      async list () { return (await users.find().sort({ _id: 1 }).toArray()).map(toUser) },
      async count () { return users.countDocuments() },
    },
    groups: {
      async create (group) {
        try {
          await groups.insertOne({ name: group.name, backend_auth: group.backendAuth }, DURABLE)
          return { ...group }
        } catch (err) {
          if (isDuplicate(err)) return 'taken'
          throw err
        }
      },
      async list () {
        const docs = await groups.find().sort({ name: 1 }).toArray()
        return docs.map((g): GroupRecord => ({ name: g.name, backendAuth: g.backend_auth }))
      },
    },
    apiKeys: {
      async create (key) {
        // an owner removed between this look and the insert leaves a key no exchange accepts (it checks the owner)
        if (await users.countDocuments({ _id: key.userId }) === 0) return 'unknown_user'
        const doc: ApiKeyDoc = {
          _id: key.id, name: key.name, secret_hash: key.secretHash, user_id: key.userId, groups: key.groups,
          created: new Date(key.created), expires_at: key.expiresAt === null ? null : new Date(key.expiresAt), last_used: null,
        }
        await apiKeys.insertOne(doc, DURABLE)
        return toApiKey(doc)
      },
      async get (id) {
        const doc = await apiKeys.findOne({ _id: id })
        return doc ? toApiKey(doc) : null
      },
      async list () { return (await apiKeys.find().sort({ created: -1, _id: 1 }).toArray()).map(toApiKey) },
      async remove (id) { return (await apiKeys.deleteOne({ _id: id }, DURABLE)).deletedCount === 1 },
      async touch (id, at) { await apiKeys.updateOne({ _id: id }, { $set: { last_used: new Date(at) } }) },
    },
    async importAccounts (newGroups, newUsers) {
      const session = client.startSession()
      try {
        const ids = new Map<string, number>()
        await session.withTransaction(async () => {
          ids.clear()
          for (const g of newGroups) {
            await groups.updateOne({ name: g.name }, { $setOnInsert: { backend_auth: g.backendAuth } }, { upsert: true, session })
          }
          const needed = sortedGroups(newUsers.flatMap((u) => u.groups))
          if ((await missingGroups(needed, session)).length > 0) throw new ImportConflictError('a group vanished during the import')
          for (const u of newUsers) ids.set(u.username, (await insertUser(u, session))._id)
        }, { ...DURABLE, readConcern: { level: 'snapshot' } })
        return ids
      } catch (err) {
        if (isDuplicate(err)) throw new ImportConflictError('accounts changed during the import')
        throw err
      } finally {
        await session.endSession()
      }
    },
    async close () { /* the client is shared; its owner closes it */ },
  }
}
