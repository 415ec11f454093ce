import type { Migration } from '@content/platform/migrations'
import { MongoServerError, type ClientSession, type Collection, type Db } from 'mongodb'

export interface UserDoc {
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
export interface ApiKeyDoc {
  _id: string
  name: string
  secret_hash: string
  user_id: number
  groups: string[]
  created: Date
  expires_at: Date | null
  last_used: Date | null
}
export interface GroupDoc { name: string, backend_auth: boolean }
export interface CounterDoc { _id: string, seq: number }

export interface Collections {
  users: Collection<UserDoc>
  groups: Collection<GroupDoc>
  counters: Collection<CounterDoc>
  apiKeys: Collection<ApiKeyDoc>
}

export const collectionsOf = (db: Db): Collections => ({
  users: db.collection<UserDoc>('users'),
  groups: db.collection<GroupDoc>('groups'),
  counters: db.collection<CounterDoc>('counters'),
  apiKeys: db.collection<ApiKeyDoc>('api_keys'),
})

/** Every acknowledged write is on a majority of the replica set and in its journal. */
export const DURABLE = { writeConcern: { w: 'majority' as const, j: true } }
/** Inside a transaction the commit carries the write concern; single operations may not set one. */
export const writeOptions = (session?: ClientSession) => session ? { session } : DURABLE
const DUPLICATE_KEY = 11000

export const isDuplicate = (err: unknown) => err instanceof MongoServerError && err.code === DUPLICATE_KEY

/**
 * The auth service's indexes, version by version (its document in `schema_versions`). Version 1 is what the
 * last release before versions created on open; createIndex is a no-op for an identical index.
 */
export const AUTH_MONGO_MIGRATIONS: Migration<Db>[] = [
  {
    version: 1,
    name: 'unique usernames and group names',
    async up (db) {
      const c = collectionsOf(db)
      await c.users.createIndex({ username: 1 }, { unique: true })
      await c.groups.createIndex({ name: 1 }, { unique: true })
    },
  },
]

/** A database with the users collection but no recorded auth version: an earlier release wrote it. */
export const earlierMongoRelease = async (db: Db): Promise<boolean> =>
  (await db.listCollections({ name: 'users' }, { nameOnly: true }).toArray()).length > 0
