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
  /** ms since the epoch: logins older than this may no longer refresh (password changed, disabled) */
  sessionsSince: number
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
  /** also ends the user's sessions when disabling (sessionsSince = now) */
  setDisabled(id: number, disabled: boolean, now: number): Promise<boolean>
  /** a new password hash; the user's sessions end (sessionsSince = now) */
  setPassword(id: number, passwordHash: string, now: number): Promise<boolean>
  /** the user and their API keys; false when there was no such user */
  remove(id: number): Promise<boolean>
  /** every user, by id */
  list(): Promise<UserRecord[]>
  count(): Promise<number>
}

/** A long-lived credential for a machine: acts as its owner with its own groups. */
export interface ApiKeyRecord {
  id: string
  name: string
  groups: string[]
  userId: number
  /** ms since the epoch */
  created: number
  expiresAt: number | null
  lastUsed: number | null
  /** SHA-256 (hex) of the secret part; the key itself is never stored */
  secretHash: string
}

export type NewApiKey = Omit<ApiKeyRecord, 'lastUsed'>

export interface ApiKeysPort {
  /** 'unknown_user' when the owner does not exist */
  create(key: NewApiKey): Promise<ApiKeyRecord | 'unknown_user'>
  get(id: string): Promise<ApiKeyRecord | null>
  /** every key, newest first */
  list(): Promise<ApiKeyRecord[]>
  /** false when there was no such key */
  remove(id: string): Promise<boolean>
  /** records a use; best effort */
  touch(id: string, now: number): Promise<void>
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

export const sortedGroups = (groups: Iterable<string>) => [...new Set(groups)].sort()
