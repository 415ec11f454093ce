import type { Logger } from '@content/platform'
import { ImportConflictError, type AccountsStore } from '../store/accounts.store.js'
import type { GroupRecord } from '../store/groups.store.js'
import { generatePassword, hashPassword } from '../security/passwords.js'

export const DEFAULT_GROUPS: readonly GroupRecord[] = [
  { name: 'administrator', backendAuth: true },
  { name: 'editor', backendAuth: true },
]

export interface BootstrapOptions {
  adminUsername: string
  /** When absent a strong password is generated and shown once through `announce`. */
  adminPassword?: string | undefined
  log: Logger
  /** Where the generated password goes, once; stdout in the process. */
  announce?: (line: string) => void
}

/**
 * On a store without users: the default groups and the admin user in `administrator`.
 * Returns whether it created anything. A replica that loses the race to another one does nothing.
 */
export async function bootstrapAccounts (accounts: AccountsStore, options: BootstrapOptions): Promise<boolean> {
  if (await accounts.users.count() > 0) return false
  const generated = options.adminPassword === undefined
  const password = options.adminPassword ?? generatePassword()
  const admin = {
    username: options.adminUsername, passwordHash: await hashPassword(password),
    name: 'Administrator', email: '', groups: ['administrator'], cardId: null,
  }
  try {
    await accounts.importAccounts([...DEFAULT_GROUPS], [admin])
  } catch (err) {
    if (err instanceof ImportConflictError) return false
    throw err
  }
  options.log.info({ username: options.adminUsername, generatedPassword: generated }, 'bootstrapped the default groups and the admin user')
  if (generated) {
    const announce = options.announce ?? ((line: string) => { process.stdout.write(`${line}\n`) })
    announce(`admin password (shown once): ${password}`)
  }
  return true
}
