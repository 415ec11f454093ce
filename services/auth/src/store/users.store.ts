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

/** Users: unique usernames, ids from one increasing sequence that never gives an id twice. */
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

export const sortedGroups = (groups: Iterable<string>) => [...new Set(groups)].sort()
