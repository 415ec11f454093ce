import type { GroupRecord, GroupsPort } from '../groups.store.js'
import { DURABLE, isDuplicate, type Collections } from './schema.mongo.js'

/** Groups in MongoDB (`groups`, unique by name). */
export function groupsPort (c: Collections): GroupsPort {
  return {
    async create (group) {
      try {
        await c.groups.insertOne({ name: group.name, backend_auth: group.backendAuth }, DURABLE)
        return { ...group }
      } catch (err) {
        if (isDuplicate(err)) return 'taken'
        throw err
      }
    },
    async list () {
      const docs = await c.groups.find().sort({ name: 1 }).toArray()
      return docs.map((g): GroupRecord => ({ name: g.name, backendAuth: g.backend_auth }))
    },
  }
}
