import { createRpcServer, type Logger, type RpcServer, type RpcServerOptions } from '@content/platform'
import { loadContentProtos, type v1 } from '@content/protos'
import { accountsHandlers } from './rpc/accounts.handlers.js'
import { sessionsHandlers } from './rpc/sessions.handlers.js'
import { createAccountsService } from './services/accounts.service.js'
import { createApiKeysService } from './services/api-keys.service.js'
import { createSessionsService, type SessionSettings } from './services/sessions.service.js'
import type { AccountsStore } from './store/accounts.store.js'
import type { TokensStore } from './store/tokens.store.js'
import type { FailureLimiter } from './services/login-limiter.js'

export interface AuthServerDeps {
  log: Logger
  /** server settings (maximum connection age) */
  rpc: Pick<RpcServerOptions, 'maxConnectionAgeMs' | 'identity'>
  accounts: AccountsStore
  tokens: TokensStore
  settings: SessionSettings
  /** failed logins shared by every replica; by default counted in this process */
  limiter?: FailureLimiter
  /** ms since the epoch; tests move it */
  now?: () => number
}

export const AUTH_SERVICE_NAME = 'content.v1.AuthService'

/** The admin tool's RPCs: only an administrator may call them. */
export const AUTH_ADMINISTRATION = [
  'CreateUser', 'CreateGroup', 'ListGroups', 'ImportAccounts', 'ListUsers', 'SetPassword', 'SetDisabled', 'DeleteUser',
  'CreateApiKey', 'ListApiKeys', 'RevokeApiKey',
] as const

/** The auth gRPC server with every RPC wired, not yet listening. */
export function buildAuthServer (deps: AuthServerDeps): RpcServer {
  const server = createRpcServer(deps.log, deps.rpc)
  const sessions = createSessionsService(deps)
  const apiKeys = createApiKeysService(deps.accounts, sessions, deps.now)
  server.add<v1.AuthServiceHandlers>(loadContentProtos().content.v1.AuthService.service, {
    ...accountsHandlers(createAccountsService(deps.accounts, deps.now), apiKeys),
    ...sessionsHandlers(sessions, apiKeys),
  }, AUTH_SERVICE_NAME, { administration: AUTH_ADMINISTRATION })
  return server
}
