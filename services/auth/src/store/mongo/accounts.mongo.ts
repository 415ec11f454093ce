import { MongoServerError, type ClientSession, type Db, type MongoClient } from 'mongodb'
import {
  ImportConflictError, sortedGroups,
  type AccountsStore, type GroupRecord, type NewUser, type UserRecord,
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
  }
}

/**
 * Users and groups in MongoDB (`users`, `groups`, and `counters` for the id sequence). Imports run in
 * a transaction, which needs a replica set (a single-node one will do).
 */
export async function createMongoAccountsStore (client: MongoClient, db: Db, now: () => number = Date.now): Promise<AccountsStore> {
  const users = db.collection<UserDoc>('users')
  const groups = db.collection<GroupDoc>('groups')
  const counters = db.collection<CounterDoc>('counters')
  await users.createIndex({ username: 1 }, { unique: true })
  await groups.createIndex({ name: 1 }, { unique: true })

  const nextId = async (session?: ClientSession) => {
    const doc = await counters.findOneAndUpdate(
      { _id: 'users' }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after', ...writeOptions(session) },
    )
    return doc!.seq
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
      async setDisabled (id, disabled) {
        return (await users.updateOne({ _id: id }, { $set: { disabled } }, DURABLE)).matchedCount === 1
      },
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
