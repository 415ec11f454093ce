import { TEST_IDENTITY, TEST_IDENTITY_ENV, testIdentity } from '@content/platform/testing'
import { sessionSettings, loadAuthConfig } from '../../src/config.js'
import { buildAuthServer } from '../../src/server.js'
import type { SessionSettings } from '../../src/services/deps.js'
import { createSqliteAccountsStore } from '../../src/store/sqlite/accounts.sqlite.js'
import { openAuthDatabase, type SqliteDb } from '../../src/store/sqlite/database.js'
import { createSqliteTokensStore } from '../../src/store/sqlite/tokens.sqlite.js'
import type { AccountsStore } from '../../src/store/accounts.store.js'
import type { TokensStore } from '../../src/store/tokens.store.js'
import { captureLogger } from './logger.js'
import { listenAndConnect, type AuthClient } from './rpc.js'
import { tempDir } from './temp.js'
import { must } from './must.js'

export const TEST_SECRET = TEST_IDENTITY.JWT_SECRET

export function testSettings (env: NodeJS.ProcessEnv = {}): SessionSettings {
  return sessionSettings(loadAuthConfig({ ...TEST_IDENTITY_ENV, ...env }))
}

/** A clock that tests move forward; starts at the real time. */
export function testClock () {
  let offset = 0
  return { now: () => Date.now() + offset, advance: (ms: number) => { offset += ms } }
}

export interface Stack {
  client: AuthClient
  address: string
  accounts: AccountsStore
  tokens: TokensStore
  db: SqliteDb
  dataDir: string
  logs: ReturnType<typeof captureLogger>
  clock: ReturnType<typeof testClock>
  stop: () => Promise<void>
}

export interface StackOptions {
  env?: NodeJS.ProcessEnv
  /** an existing data dir (a restart); else a fresh temp dir removed on stop */
  dataDir?: string
  tokens?: (db: SqliteDb) => TokensStore | Promise<TokensStore>
}

/** The auth server over real SQLite in a temp dir (tokens in SQLite unless `tokens` says otherwise), on port 0. */
export async function startStack (options: StackOptions = {}): Promise<Stack> {
  const dir = options.dataDir ? null : tempDir()
  const dataDir = options.dataDir ?? must(dir).path
  const db = openAuthDatabase(dataDir)
  const accounts = createSqliteAccountsStore(db)
  const tokens = await (options.tokens ?? createSqliteTokensStore)(db)
  const logs = captureLogger()
  const clock = testClock()
  const server = buildAuthServer({ log: logs.log, rpc: { identity: testIdentity('auth').verifiers }, accounts, tokens, settings: testSettings(options.env), now: clock.now })
  const { client, address, stop } = await listenAndConnect(server)
  return {
    client, address, accounts, tokens, db, dataDir, logs, clock,
    stop: async () => { await stop(); await tokens.close(); db.close(); dir?.remove() },
  }
}
