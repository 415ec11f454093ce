/** What an administrator asks for when creating a user (the password still in clear). */
export interface UserInput {
  username: string
  password: string
  groups: string[]
  name: string
  email: string
  cardId: number | null
  /** an import from an admin export: the argon2id hash kept instead of a password (then `password` is empty) */
  passwordHash?: string
  disabled?: boolean
}

export interface GroupInput {
  name: string
  backendAuth: boolean
}

/** field → what is wrong with it */
export type Problems = Record<string, string>

const MAX_NAME = 255
/** argon2 accepts any length; a bound keeps one request from costing unbounded work. */
export const MAX_PASSWORD = 1024
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point, names that contain them are refused
const CONTROL = /[\u0000-\u001f\u007f]/

function nameProblem (value: string): string | null {
  if (value.trim() === '') return 'is required'
  if (value !== value.trim()) return 'must not start or end with spaces'
  if (value.length > MAX_NAME) return `must be at most ${MAX_NAME} characters`
  if (CONTROL.test(value)) return 'must not contain control characters'
  return null
}

export function passwordProblem (password: string): string | null {
  if (password === '') return 'is required'
  if (password.length > MAX_PASSWORD) return `must be at most ${MAX_PASSWORD} characters`
  return null
}

/**
 * An argon2id hash in its PHC form, with costs a login can afford: a hostile export file could otherwise
 * make every login of the account cost gigabytes or minutes.
 */
const ARGON2ID_HASH = /^\$argon2id\$v=19\$m=(\d{1,7}),t=(\d{1,2}),p=(\d{1,2})\$[A-Za-z0-9+/]{11,64}\$[A-Za-z0-9+/]{16,128}$/

export function passwordHashProblem (hash: string): string | null {
  const match = ARGON2ID_HASH.exec(hash)
  if (!match) return 'must be an argon2id hash ($argon2id$v=19$m=…,t=…,p=…$salt$hash)'
  const [memory, passes, lanes] = match.slice(1).map(Number) as [number, number, number]
  if (memory < 8 || memory > 262_144 || passes < 1 || passes > 10 || lanes < 1 || lanes > 8) return 'has costs out of bounds (m ≤ 262144, t ≤ 10, p ≤ 8)'
  return null
}

/** Problems of one user on its own, keyed by field under `prefix`. */
export function userProblems (user: UserInput, prefix = ''): Problems {
  const problems: Problems = {}
  const username = nameProblem(user.username)
  if (username) problems[`${prefix}username`] = username
  if (user.passwordHash) {
    const hash = passwordHashProblem(user.passwordHash)
    if (hash) problems[`${prefix}password_hash`] = hash
    if (user.password !== '') problems[`${prefix}password`] = 'must be empty when password_hash is given'
  } else {
    const password = passwordProblem(user.password)
    if (password) problems[`${prefix}password`] = password
  }
  if (user.cardId !== null && (!Number.isSafeInteger(user.cardId) || user.cardId < 1)) problems[`${prefix}card_id`] = 'must be a positive integer'
  return problems
}

export function groupProblems (group: GroupInput, prefix = ''): Problems {
  const name = nameProblem(group.name)
  return name ? { [`${prefix}name`]: name } : {}
}

/** Groups a user names that are not in `known`. */
export function unknownGroups (groups: string[], known: ReadonlySet<string>): string[] {
  return [...new Set(groups)].filter((g) => !known.has(g)).sort()
}

export interface ImportInput {
  groups: GroupInput[]
  users: UserInput[]
}

export interface ExistingAccounts {
  groups: ReadonlySet<string>
  usernames: ReadonlySet<string>
}

/**
 * Everything wrong with an import, at once: each group and user on its own, duplicate names inside
 * the file, usernames that exist already, and groups that will not exist after the import.
 */
export function importProblems (input: ImportInput, existing: ExistingAccounts): Problems {
  const problems: Problems = {}
  const seenGroups = new Set<string>()
  input.groups.forEach((g, i) => {
    Object.assign(problems, groupProblems(g, `groups[${i}].`))
    if (seenGroups.has(g.name)) problems[`groups[${i}].name`] = `"${g.name}" appears twice`
    seenGroups.add(g.name)
  })
  const known = new Set([...existing.groups, ...seenGroups])
  const seenUsers = new Set<string>()
  input.users.forEach((u, i) => {
    const prefix = `users[${i}].`
    Object.assign(problems, userProblems(u, prefix))
    if (seenUsers.has(u.username)) problems[`${prefix}username`] = `"${u.username}" appears twice`
    else if (existing.usernames.has(u.username)) problems[`${prefix}username`] = `"${u.username}" exists already`
    seenUsers.add(u.username)
    const missing = unknownGroups(u.groups, known)
    if (missing.length > 0) problems[`${prefix}groups`] = `unknown groups: ${missing.join(', ')}`
  })
  return problems
}

export const hasProblems = (problems: Problems) => Object.keys(problems).length > 0
