import { present } from '@content/platform'
import type { ClientSession, MongoClient } from 'mongodb'
import { sortedGroups, type NewUser, type UserRecord, type UsersPort } from '../users.store.js'
import { DURABLE, isDuplicate, writeOptions, type Collections, type UserDoc } from './schema.mongo.js'

function toUser (doc: UserDoc): UserRecord {
  return {
    id: doc._id, username: doc.username, name: doc.name, email: doc.email, groups: sortedGroups(doc.groups),
    created: doc.created.getTime(), cardId: doc.card_id, disabled: doc.disabled, passwordHash: doc.password_hash,
    sessionsSince: doc.sessions_since ?? 0,
  }
}

/** Which of `names` no group has. */
export async function missingGroups (c: Collections, names: string[], session?: ClientSession): Promise<string[]> {
  const found = await c.groups.find({ name: { $in: names } }, { session }).map((g) => g.name).toArray()
  return names.filter((n) => !found.includes(n))
}

/** Inserts a user with the next id of the `users` counter (inside the caller's transaction, when given one). */
export async function insertUser (c: Collections, user: NewUser, now: number, session?: ClientSession): Promise<UserDoc> {
  const counter = await c.counters.findOneAndUpdate(
    { _id: 'users' }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after', ...writeOptions(session) },
  )
  const doc: UserDoc = {
    _id: present(counter, 'the users counter').seq, username: user.username, password_hash: user.passwordHash, name: user.name,
    email: user.email, groups: sortedGroups(user.groups), created: new Date(now), card_id: user.cardId,
    disabled: user.disabled ?? false,
  }
  await c.users.insertOne(doc, writeOptions(session))
  return doc
}

/** Users in MongoDB (`users`, ids from the `counters` document `users`). */
export function usersPort (client: MongoClient, c: Collections, now: () => number): UsersPort {
  return {
    async create (user) {
      if ((await missingGroups(c, sortedGroups(user.groups))).length > 0) return 'unknown_groups'
      try {
        return toUser(await insertUser(c, user, now()))
      } catch (err) {
        if (isDuplicate(err)) return 'taken'
        throw err
      }
    },
    async get (id) {
      const doc = await c.users.findOne({ _id: id })
      return doc ? toUser(doc) : null
    },
    async findByUsername (username) {
      const doc = await c.users.findOne({ username })
      return doc ? toUser(doc) : null
    },
    async existing (usernames) {
      return c.users.find({ username: { $in: usernames } }).map((u) => u.username).toArray()
    },
    async setDisabled (id, disabled, at) {
      const set = disabled ? { disabled, sessions_since: at } : { disabled }
      return (await c.users.updateOne({ _id: id }, { $set: set }, DURABLE)).matchedCount === 1
    },
    async setPassword (id, passwordHash, at) {
      return (await c.users.updateOne({ _id: id }, { $set: { password_hash: passwordHash, sessions_since: at } }, DURABLE)).matchedCount === 1
    },
    async remove (id) {
      const session = client.startSession()
      try {
        let removed = false
        await session.withTransaction(async () => {
          removed = (await c.users.deleteOne({ _id: id }, { session })).deletedCount === 1
          await c.apiKeys.deleteMany({ user_id: id }, { session })
        }, DURABLE)
        return removed
      } finally {
        await session.endSession()
      }
    },
    async list () { return (await c.users.find().sort({ _id: 1 }).toArray()).map(toUser) },
    async count () { return c.users.countDocuments() },
  }
}
