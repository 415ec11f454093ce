import { ADMINISTRATOR_GROUP, DomainError } from '@content/platform'
import {
  groupProblems, hasProblems, importProblems, passwordProblem, unknownGroups, userProblems,
  type GroupInput, type ImportInput, type Problems, type UserInput,
} from '../core/accounts.rules.js'
import { hashPassword } from '../security/passwords.js'
import { ImportConflictError, type AccountsStore, type GroupRecord, type NewUser, type UserRecord } from '../store/accounts.store.js'

const invalid = (problems: Problems) =>
  new DomainError('VALIDATION_FAILED', `invalid fields: ${Object.keys(problems).join(', ')}`, problems)
const fixturesInvalid = (problems: Problems) =>
  new DomainError('FIXTURES_INVALID', `the accounts cannot be imported: ${Object.keys(problems).length} problem(s)`, problems)
export const userNotFound = () => new DomainError('USER_NOT_FOUND', 'user not found')

async function toNewUser (user: UserInput): Promise<NewUser> {
  return {
    username: user.username, passwordHash: await hashPassword(user.password), name: user.name,
    email: user.email, groups: user.groups, cardId: user.cardId,
  }
}

export interface AccountsService {
  createUser(input: UserInput): Promise<UserRecord>
  createGroup(input: GroupInput): Promise<GroupRecord>
  listGroups(): Promise<GroupRecord[]>
  getUser(id: number): Promise<UserRecord>
  listUsers(): Promise<UserRecord[]>
  /** a new password; the user's logins end */
  setPassword(id: number, password: string): Promise<void>
  /** disabling ends the user's logins; the last enabled administrator cannot be disabled */
  setDisabled(id: number, disabled: boolean): Promise<UserRecord>
  /** the user, its API keys and (since no refresh can find it) its logins; never the last enabled administrator */
  deleteUser(id: number): Promise<void>
  /** Validates everything first; `dryRun` stops there. Returns username → id (empty for a dry run). */
  importAccounts(input: ImportInput, dryRun: boolean): Promise<Map<string, number>>
}

/** The administration rules over the accounts store: validation, hashing, domain errors. */
export function createAccountsService (store: AccountsStore, now: () => number = Date.now): AccountsService {
  const groupNames = async () => new Set((await store.groups.list()).map((g) => g.name))
  const existingUser = async (id: number) => {
    const user = Number.isSafeInteger(id) && id > 0 ? await store.users.get(id) : null
    if (!user) throw userNotFound()
    return user
  }
  /** An administration tool that locks every administrator out cannot be used to undo it. */
  const keepAnAdministrator = async (user: UserRecord) => {
    if (!user.groups.includes(ADMINISTRATOR_GROUP) || user.disabled) return
    const others = (await store.users.list()).filter((u) => u.id !== user.id && !u.disabled && u.groups.includes(ADMINISTRATOR_GROUP))
    if (others.length === 0) throw new DomainError('LAST_ADMINISTRATOR', 'the last enabled administrator cannot be disabled or deleted')
  }

  return {
    async createUser (input) {
      const problems = userProblems(input)
      if (hasProblems(problems)) throw invalid(problems)
      const missing = unknownGroups(input.groups, await groupNames())
      if (missing.length > 0) throw invalid({ groups: `unknown groups: ${missing.join(', ')}` })
      const created = await store.users.create(await toNewUser(input))
      if (created === 'taken') throw new DomainError('USER_EXISTS', `username "${input.username}" is taken`)
      if (created === 'unknown_groups') throw invalid({ groups: 'unknown groups' })
      return created
    },
    async createGroup (input) {
      const problems = groupProblems(input)
      if (hasProblems(problems)) throw invalid(problems)
      const created = await store.groups.create(input)
      if (created === 'taken') throw new DomainError('GROUP_EXISTS', `group "${input.name}" exists already`)
      return created
    },
    listGroups: () => store.groups.list(),
    getUser: existingUser,
    listUsers: () => store.users.list(),
    async setPassword (id, password) {
      await existingUser(id)
      const problem = passwordProblem(password)
      if (problem) throw invalid({ password: problem })
      if (!await store.users.setPassword(id, await hashPassword(password), now())) throw userNotFound()
    },
    async setDisabled (id, disabled) {
      const user = await existingUser(id)
      if (disabled) await keepAnAdministrator(user)
      if (!await store.users.setDisabled(id, disabled, now())) throw userNotFound()
      return existingUser(id)
    },
    async deleteUser (id) {
      await keepAnAdministrator(await existingUser(id))
      if (!await store.users.remove(id)) throw userNotFound()
    },
    async importAccounts (input, dryRun) {
      const existing = {
        groups: await groupNames(),
        usernames: new Set(await store.users.existing(input.users.map((u) => u.username))),
      }
      const problems = importProblems(input, existing)
      if (hasProblems(problems)) throw fixturesInvalid(problems)
      if (dryRun) return new Map()
      const users = await Promise.all(input.users.map(toNewUser))
      try {
        return await store.importAccounts(input.groups, users)
      } catch (err) {
        if (err instanceof ImportConflictError) throw fixturesInvalid({ accounts: err.message })
        throw err
      }
    },
  }
}
