import type { ApiKeysPort } from './api-keys.store.js'
import type { GroupRecord, GroupsPort } from './groups.store.js'
import type { NewUser, UsersPort } from './users.store.js'

/**
 * The accounts of the auth service: one port per thing (users.store.ts, groups.store.ts,
 * api-keys.store.ts), and the one write that spans them.
 */
export interface AccountsStore {
  readonly users: UsersPort
  readonly groups: GroupsPort
  readonly apiKeys: ApiKeysPort
  /**
   * All or nothing: creates the groups that do not exist yet (existing ones stay as they are), then
   * the users. Callers validate first; a conflict found here (a concurrent writer) rejects the whole
   * import with `ImportConflictError`. Returns username → id.
   */
  importAccounts(groups: GroupRecord[], users: NewUser[]): Promise<Map<string, number>>
  close(): Promise<void>
}

/** An import lost a race: a username or group appeared (or a group vanished) after validation. */
export class ImportConflictError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'ImportConflictError'
  }
}
