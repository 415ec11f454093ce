import type { v1 } from '@content/protos'
import type { SessionsService, TokenPair } from '../services/sessions.service.js'

const formatPair = (pair: TokenPair): v1.TokenPair =>
  ({ access_token: pair.accessToken, expires_in: pair.expiresIn, refresh_token: pair.refreshToken })

/** Token RPCs: proto ↔ sessions service. */
export function sessionsHandlers (sessions: SessionsService) {
  return {
    Login: async (request: v1.LoginRequest__Output): Promise<v1.TokenPair> =>
      formatPair(await sessions.login(request.username, request.password, request.client_address)),
    Refresh: async (request: v1.RefreshRequest__Output): Promise<v1.TokenPair> =>
      formatPair(await sessions.refresh(request.refresh_token)),
    Revoke: async (request: v1.RevokeRequest__Output): Promise<v1.Empty> => {
      await sessions.revoke(request.caller?.user_id ?? 0, request.refresh_token)
      return {}
    },
  }
}
