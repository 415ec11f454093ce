import { join } from 'node:path'
import type { ObjectsConfig } from '../config.js'
import type { ObjectsStore } from './objects.store.js'
import { openSqliteStore } from './sqlite/sqlite.store.js'

/** The store the configuration names: SQLite under DATA_DIR, or MongoDB (replica set). */
export async function openStore (config: ObjectsConfig): Promise<ObjectsStore> {
  const options = { publicationNickname: config.PUBLICATION_NICKNAME }
  if (config.STORE === 'mongodb') {
    const { openMongoStore } = await import('./mongo/mongo.store.js')
    return openMongoStore(config.MONGODB_URL!, config.MONGODB_DB, options)
  }
  return openSqliteStore(join(config.DATA_DIR, 'objects.sqlite'), options)
}
