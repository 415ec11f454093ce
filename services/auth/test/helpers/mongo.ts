import { randomBytes } from 'node:crypto'
import { MongoClient, type Db } from 'mongodb'
import { must } from './must.js'

export const MONGODB_URL = process.env.MONGODB_URL
export const MONGO_SKIP_TITLE = '(skipped: MONGODB_URL not set)'

/** A throwaway database on the MONGODB_URL server, dropped by `drop`. */
export async function tempMongoDb (): Promise<{ client: MongoClient, db: Db, drop: () => Promise<void> }> {
  const client = await MongoClient.connect(must(MONGODB_URL))
  const db = client.db(`auth_test_${randomBytes(6).toString('hex')}`)
  return { client, db, drop: async () => { await db.dropDatabase(); await client.close() } }
}
