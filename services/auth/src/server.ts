import { createRpcServer, type Logger, type RpcServer, type RpcServerOptions } from '@content/platform'
import { loadContentProtos, type v1 } from '@content/protos'
import { accountsHandlers } from './rpc/accounts.handlers.js'
import { sessionsHandlers } from './rpc/sessions.handlers.js'
import { dummyPasswordHash } from './security/passwords.js'
import type { ServiceDeps, SessionSettings } from './services/deps.js'
import { createMemoryLoginLimiter, type FailureLimiter } from './services/login-limiter.js'
import type { AccountsStore } from './store/accounts.store.js'
import type { TokensStore } from './store/tokens.store.js'
import type { TicketsStore } from './store/tickets.store.js'

export interface AuthServerDeps {
  log: Logger
  /** server settings (maximum connection age) */
  rpc: Pick<RpcServerOptions, 'maxConnectionAgeMs' | 'identity'>
  accounts: AccountsStore
  tokens: TokensStore
  /** live-stream tickets (decisions §17); absent: none are issued */
  tickets?: TicketsStore
  settings: SessionSettings
  /** failed logins shared by every replica; by default counted in this process */
  limiter?: FailureLimiter
  /** ms since the epoch; tests move it */
  now?: () => number
}

export const AUTH_SERVICE_NAME = 'content.v1.AuthService'

/** The admin tool's RPCs: only an administrator may call them. */
export const AUTH_ADMINISTRATION = [
  'CreateUser', 'CreateGroup', 'ListGroups', 'ImportAccounts', 'ListUsers', 'ExportAccounts', 'SetPassword', 'SetDisabled', 'DeleteUser',
  'CreateApiKey', 'ListApiKeys', 'RevokeApiKey',
] as const

/** What the request paths share, once per process: the failed-login counts and the dummy hash among them. */
function serviceDeps (server: AuthServerDeps): ServiceDeps {
  const { accounts, tokens, settings } = server
  return {
    accounts,
    tokens,
    ...(server.tickets ? { tickets: server.tickets } : {}),
    settings,
    log: server.log.child({ component: 'sessions' }),
    now: server.now ?? Date.now,
    limiter: server.limiter ?? createMemoryLoginLimiter({ maxFailures: settings.maxFailures, windowMs: settings.failureWindowSeconds * 1000 }),
    dummyHash: dummyPasswordHash(),
  }
}

/** The auth gRPC server with every RPC wired, not yet listening. */
export function buildAuthServer (server: AuthServerDeps): RpcServer {
  const rpc = createRpcServer(server.log, server.rpc)
  const deps = serviceDeps(server)
  rpc.add<v1.AuthServiceHandlers>(loadContentProtos().content.v1.AuthService.service, {
    ...accountsHandlers(deps),
    ...sessionsHandlers(deps),
  }, AUTH_SERVICE_NAME, { administration: AUTH_ADMINISTRATION })
  return rpc
}
