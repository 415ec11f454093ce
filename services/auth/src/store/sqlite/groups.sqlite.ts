import type { GroupsPort } from '../groups.store.js'
import type { SqliteDb } from './database.js'
import { isUniqueViolation } from './users.sqlite.js'

/** Groups in the auth service's SQLite file. */
export function groupsPort (db: SqliteDb): GroupsPort {
  const insert = db.prepare('INSERT INTO groups (name, backend_auth) VALUES (?, ?)')
  const list = db.prepare<[], { name: string, backend_auth: number }>('SELECT name, backend_auth FROM groups ORDER BY name')
  return {
    async create (group) {
      try {
        insert.run(group.name, group.backendAuth ? 1 : 0)
        return { ...group }
      } catch (err) {
        if (isUniqueViolation(err)) return 'taken'
        throw err
      }
    },
    async list () { return list.all().map((r) => ({ name: r.name, backendAuth: r.backend_auth === 1 })) },
  }
}
