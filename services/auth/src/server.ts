import { createRpcServer, type Logger, type RpcServer, type RpcServerOptions } from '@content/platform'
import { loadContentProtos, type v1 } from '@content/protos'
import { accountsHandlers } from './rpc/accounts.handlers.js'
import { sessionsHandlers } from './rpc/sessions.handlers.js'
import { createAccountsService } from './services/accounts.service.js'
import { createSessionsService, type SessionSettings } from './services/sessions.service.js'
import type { AccountsStore } from './store/accounts.store.js'
import type { TokensStore } from './store/tokens.store.js'

export interface AuthServerDeps {
  log: Logger
  /** server settings (maximum connection age) */
  rpc?: Pick<RpcServerOptions, 'maxConnectionAgeMs'>
  accounts: AccountsStore
  tokens: TokensStore
  settings: SessionSettings
  /** ms since the epoch; tests move it */
  now?: () => number
}

export const AUTH_SERVICE_NAME = 'content.v1.AuthService'

/** The auth gRPC server with every RPC wired, not yet listening. */
export function buildAuthServer (deps: AuthServerDeps): RpcServer {
  const server = createRpcServer(deps.log, deps.rpc)
  const sessions = createSessionsService(deps)
  server.add<v1.AuthServiceHandlers>(loadContentProtos().content.v1.AuthService.service, {
    ...accountsHandlers(createAccountsService(deps.accounts)),
    ...sessionsHandlers(sessions),
  }, AUTH_SERVICE_NAME)
  return server
}
