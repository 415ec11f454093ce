/** A group of users; members of a `backendAuth` group may write. */
export interface GroupRecord {
  name: string
  backendAuth: boolean
}

export interface UserRecord {
  id: number
  username: string
  name: string
  email: string
  /** Group names, sorted. */
  groups: string[]
  /** ms since the epoch */
  created: number
  cardId: number | null
  disabled: boolean
  passwordHash: string
}

export interface NewUser {
  username: string
  passwordHash: string
  name: string
  email: string
  groups: string[]
  cardId: number | null
  disabled?: boolean
}

/** Why a single create did not happen. */
export type CreateRefusal = 'taken' | 'unknown_groups'

export interface UsersPort {
  /** Creates the user, or says why not (username taken, a group missing). */
  create(user: NewUser): Promise<UserRecord | CreateRefusal>
  get(id: number): Promise<UserRecord | null>
  findByUsername(username: string): Promise<UserRecord | null>
  /** Which of `usernames` exist already. */
  existing(usernames: string[]): Promise<string[]>
  setDisabled(id: number, disabled: boolean): Promise<boolean>
  count(): Promise<number>
}

export interface GroupsPort {
  create(group: GroupRecord): Promise<GroupRecord | 'taken'>
  /** Every group, sorted by name. */
  list(): Promise<GroupRecord[]>
}

/**
 * Users and groups of the auth service. Usernames and group names are unique; user ids come from
 * one increasing integer sequence.
 */
export interface AccountsStore {
  readonly users: UsersPort
  readonly groups: GroupsPort
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

export const sortedGroups = (groups: Iterable<string>) => [...new Set(groups)].sort()
