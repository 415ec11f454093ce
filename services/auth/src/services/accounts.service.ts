import { ADMINISTRATOR_GROUP, DomainError } from '@content/platform'
import {
  groupProblems, hasProblems, importProblems, passwordProblem, unknownGroups, userProblems,
  type GroupInput, type ImportInput, type Problems, type UserInput,
} from '../core/accounts.rules.js'
import { hashPassword } from '../security/passwords.js'
import { ImportConflictError } from '../store/accounts.store.js'
import type { GroupRecord } from '../store/groups.store.js'
import type { NewUser, UserRecord } from '../store/users.store.js'
import type { ServiceDeps } from './deps.js'

/** What the administration rules over the accounts store (validation, hashing, domain errors) read. */
export type AccountsDeps = Pick<ServiceDeps, 'accounts' | 'now'>

const invalid = (problems: Problems) =>
  new DomainError('VALIDATION_FAILED', `invalid fields: ${Object.keys(problems).join(', ')}`, problems)
const fixturesInvalid = (problems: Problems) =>
  new DomainError('FIXTURES_INVALID', `the accounts cannot be imported: ${Object.keys(problems).length} problem(s)`, problems)
const userNotFound = () => new DomainError('USER_NOT_FOUND', 'user not found')

async function toNewUser (user: UserInput): Promise<NewUser> {
  return {
    username: user.username, passwordHash: user.passwordHash || await hashPassword(user.password), name: user.name,
    email: user.email, groups: user.groups, cardId: user.cardId, disabled: user.disabled ?? false,
  }
}

const groupNames = async (deps: AccountsDeps) => new Set((await deps.accounts.groups.list()).map((g) => g.name))

/** An administration tool that locks every administrator out cannot be used to undo it. */
async function keepAnAdministrator (deps: AccountsDeps, user: UserRecord): Promise<void> {
  if (!user.groups.includes(ADMINISTRATOR_GROUP) || user.disabled) return
  const others = (await deps.accounts.users.list()).filter((u) => u.id !== user.id && !u.disabled && u.groups.includes(ADMINISTRATOR_GROUP))
  if (others.length === 0) throw new DomainError('LAST_ADMINISTRATOR', 'the last enabled administrator cannot be disabled or deleted')
}

export async function createUser (deps: AccountsDeps, input: UserInput): Promise<UserRecord> {
  const problems = userProblems(input)
  if (hasProblems(problems)) throw invalid(problems)
  const missing = unknownGroups(input.groups, await groupNames(deps))
  if (missing.length > 0) throw invalid({ groups: `unknown groups: ${missing.join(', ')}` })
  const created = await deps.accounts.users.create(await toNewUser(input))
  if (created === 'taken') throw new DomainError('USER_EXISTS', `username "${input.username}" is taken`)
  if (created === 'unknown_groups') throw invalid({ groups: 'unknown groups' })
  return created
}

export async function createGroup (deps: AccountsDeps, input: GroupInput): Promise<GroupRecord> {
  const problems = groupProblems(input)
  if (hasProblems(problems)) throw invalid(problems)
  const created = await deps.accounts.groups.create(input)
  if (created === 'taken') throw new DomainError('GROUP_EXISTS', `group "${input.name}" exists already`)
  return created
}

export function listGroups (deps: AccountsDeps): Promise<GroupRecord[]> {
  return deps.accounts.groups.list()
}

export async function getUser (deps: AccountsDeps, id: number): Promise<UserRecord> {
  const user = Number.isSafeInteger(id) && id > 0 ? await deps.accounts.users.get(id) : null
  if (!user) throw userNotFound()
  return user
}

/** Every group and user with its password hash, for an admin export (the only answer that carries hashes). */
export async function exportAccounts (deps: AccountsDeps): Promise<{ groups: GroupRecord[], users: UserRecord[] }> {
  return { groups: await deps.accounts.groups.list(), users: await deps.accounts.users.list() }
}

export function listUsers (deps: AccountsDeps): Promise<UserRecord[]> {
  return deps.accounts.users.list()
}

/** A new password; the user's logins end. */
export async function setPassword (deps: AccountsDeps, id: number, password: string): Promise<void> {
  await getUser(deps, id)
  const problem = passwordProblem(password)
  if (problem) throw invalid({ password: problem })
  if (!await deps.accounts.users.setPassword(id, await hashPassword(password), deps.now())) throw userNotFound()
}

/** Disabling ends the user's logins; the last enabled administrator cannot be disabled. */
export async function setDisabled (deps: AccountsDeps, id: number, disabled: boolean): Promise<UserRecord> {
  const user = await getUser(deps, id)
  if (disabled) await keepAnAdministrator(deps, user)
  if (!await deps.accounts.users.setDisabled(id, disabled, deps.now())) throw userNotFound()
  return getUser(deps, id)
}

/** The user, its API keys and (since no refresh can find it) its logins; never the last enabled administrator. */
export async function deleteUser (deps: AccountsDeps, id: number): Promise<void> {
  await keepAnAdministrator(deps, await getUser(deps, id))
  if (!await deps.accounts.users.remove(id)) throw userNotFound()
}

/** Validates everything first; `dryRun` stops there. Returns username → id (empty for a dry run). */
export async function importAccounts (deps: AccountsDeps, input: ImportInput, dryRun: boolean): Promise<Map<string, number>> {
  const existing = {
    groups: await groupNames(deps),
    usernames: new Set(await deps.accounts.users.existing(input.users.map((u) => u.username))),
  }
  const problems = importProblems(input, existing)
  if (hasProblems(problems)) throw fixturesInvalid(problems)
  if (dryRun) return new Map()
  const users = await Promise.all(input.users.map(toNewUser))
  try {
    return await deps.accounts.importAccounts(input.groups, users)
  } catch (err) {
    if (err instanceof ImportConflictError) throw fixturesInvalid({ accounts: err.message })
    throw err
  }
}
