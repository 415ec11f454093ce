import { identityOf, type CallIdentity } from '@content/platform'
import type { v1 } from '@content/protos'
import { exchangeApiKey } from '../services/api-keys.service.js'
import { exchangePreviewToken } from '../services/previews.service.js'
import type { ServiceDeps } from '../services/deps.js'
import { login, refresh, revoke, sessionsAlive, type TokenPair } from '../services/sessions.service.js'
import { issueStreamTicket, redeemStreamTicket } from '../services/stream-tickets.service.js'

const formatPair = (pair: TokenPair): v1.TokenPair =>
  ({ access_token: pair.accessToken, expires_in: pair.expiresIn, refresh_token: pair.refreshToken })

/**
 * Failed logins are counted by the client address the gateway saw. Only the gateway relays clients,
 * so an address any other service sends is not believed: its failures count against that service.
 */
export const loginAddress = (identity: CallIdentity, sent: string): string =>
  identity.peer === 'gateway' ? sent : `service:${identity.peer}`

/** Sessions one CheckSessions call answers at most (a gateway sends its open streams' in batches of this). */
export const MAX_SESSIONS_CHECKED = 1_000

/** Token RPCs: proto ↔ sessions and API keys. */
export function sessionsHandlers (deps: ServiceDeps) {
  return {
    Login: async (request: v1.LoginRequest__Output, call: object): Promise<v1.TokenPair> =>
      formatPair(await login(deps, request.username, request.password, loginAddress(identityOf(call), request.client_address))),
    Refresh: async (request: v1.RefreshRequest__Output): Promise<v1.TokenPair> =>
      formatPair(await refresh(deps, request.refresh_token)),
    ExchangeApiKey: async (request: v1.ExchangeApiKeyRequest__Output): Promise<v1.AccessToken> => {
      const { accessToken, expiresIn } = await exchangeApiKey(deps, request.secret)
      return { access_token: accessToken, expires_in: expiresIn }
    },
    ExchangePreviewToken: async (request: v1.PreviewTokenRequest__Output): Promise<v1.AccessToken> => {
      const { accessToken, expiresIn } = await exchangePreviewToken(deps, request.token)
      return { access_token: accessToken, expires_in: expiresIn }
    },
    IssueStreamTicket: async (request: v1.IssueStreamTicketRequest__Output): Promise<v1.StreamTicket> => {
      const c = request.caller
      const { ticket, expiresIn } = await issueStreamTicket(deps, { userId: Number(c?.user_id ?? 0), groups: c?.groups ?? [], mayWrite: c?.may_write ?? false, session: request.session })
      return { ticket, expires_in: expiresIn }
    },
    RedeemStreamTicket: async (request: v1.RedeemStreamTicketRequest__Output): Promise<v1.RedeemedStreamTicket> => {
      const caller = await redeemStreamTicket(deps, request.ticket, request.keep)
      return { caller: { user_id: caller.userId, groups: caller.groups, may_write: caller.mayWrite }, session: caller.session }
    },
    CheckSessions: async (request: v1.CheckSessionsRequest__Output): Promise<v1.CheckSessionsResponse> =>
      ({ alive: await sessionsAlive(deps, request.sessions.slice(0, MAX_SESSIONS_CHECKED).map((s) => ({ userId: Number(s.user_id), session: s.session }))) }),
    Revoke: async (request: v1.RevokeRequest__Output): Promise<v1.Empty> => {
      await revoke(deps, request.caller?.user_id ?? 0, request.refresh_token)
      return {}
    },
  }
}
