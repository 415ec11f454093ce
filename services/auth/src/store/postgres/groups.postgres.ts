import type { Postgres } from '@content/platform/postgres'
import type { GroupsPort } from '../groups.store.js'
import { UNIQUE_VIOLATION, sqlState } from './schema.postgres.js'

/** Groups in the `auth` schema of PostgreSQL. */
export function groupsPort (db: Postgres): GroupsPort {
  return {
    async create (group) {
      try {
        await db.query('INSERT INTO auth.groups (name, backend_auth) VALUES ($1, $2)', [group.name, group.backendAuth])
        return { ...group }
      } catch (err) {
        if (sqlState(err) === UNIQUE_VIOLATION) return 'taken'
        throw err
      }
    },
    async list () {
      const { rows } = await db.query<{ name: string, backend_auth: boolean }>('SELECT name, backend_auth FROM auth.groups ORDER BY name COLLATE "C"')
      return rows.map((r) => ({ name: r.name, backendAuth: r.backend_auth }))
    },
  }
}
