import { ApiError } from './errors.js'
import { pathOf } from './query.js'
import type { Tokens } from './tokens.js'
import type { Transport } from './transport.js'
import type { DataOf, Me, TokenData, TokenStatus } from './types.js'

type Envelope<T> = { data: T }

const tokensOf = (data: TokenData, now = Date.now()): Tokens =>
  ({ accessToken: data.access_token, refreshToken: data.refresh_token, expiresAt: now + data.expires_in * 1000 })

export interface AuthApi {
  /** POST /auth, password grant: keeps the tokens in the client's storage. */
  login (username: string, password: string): Promise<TokenData>
  /**
   * POST /auth, refresh grant: rotates the refresh token (decisions §6). Concurrent calls share one
   * request, so a rotated-out token is never presented twice. A refused refresh forgets the login.
   */
  refresh (): Promise<TokenData>
  /** DELETE /auth/{refresh_token}, then forgets the tokens (also when the server no longer knew them). */
  logout (): Promise<void>
  /** GET /auth: the access token and its remaining lifetime. */
  status (): Promise<TokenStatus>
  /** GET /me: the logged-in user and, when there is one, their card object. */
  me (): Promise<Me>
  /** Whether the client holds a login. */
  loggedIn (): Promise<boolean>
}

export function createAuth (transport: Transport): AuthApi & { refresher: () => Promise<boolean> } {
  const { storage } = transport
  let refreshing: Promise<TokenData> | undefined

  async function grant (body: Record<string, string>): Promise<TokenData> {
    const answer = await transport.send<Envelope<DataOf<'postAuth'>>>({ method: 'POST', path: '/auth', json: body, token: false })
    await storage.save(tokensOf(answer.data))
    return answer.data
  }

  async function rotate (): Promise<TokenData> {
    const tokens = await storage.load()
    if (!tokens) throw new ApiError({ status: 401, code: 'AUTHENTICATION_REQUIRED', message: 'not logged in: nothing to refresh' })
    try {
      return await grant({ grant_type: 'refresh_token', refresh_token: tokens.refreshToken })
    } catch (err) {
      // a refused refresh token is gone for good (revoked, expired, or its family revoked as stolen)
      if (err instanceof ApiError && err.status === 401) await storage.save(null)
      throw err
    }
  }

  function refresh (): Promise<TokenData> {
    refreshing ??= rotate().finally(() => { refreshing = undefined })
    return refreshing
  }

  return {
    login: (username, password) => grant({ grant_type: 'password', username, password }),
    refresh,
    async logout () {
      // the path names the refresh token: a refresh in between would rotate it, so the retry is done here
      const revoke = async () => {
        const tokens = await storage.load()
        if (tokens) await transport.send({ method: 'DELETE', path: `/auth${pathOf(tokens.refreshToken)}`, retryExpired: false })
      }
      try {
        await revoke().catch(async (err: unknown) => {
          if (!(err instanceof ApiError) || err.code !== 'TOKEN_EXPIRED') throw err
          await refresh()
          await revoke()
        })
      } catch (err) {
        // 404: already revoked or unknown; 401: the login is gone anyway; either way there is nothing to end
        if (!(err instanceof ApiError) || (err.status !== 404 && err.status !== 401)) throw err
      } finally {
        await storage.save(null)
      }
    },
    status: async () => (await transport.send<Envelope<TokenStatus>>({ method: 'GET', path: '/auth' })).data,
    me: async () => (await transport.send<Envelope<Me>>({ method: 'GET', path: '/me' })).data,
    loggedIn: async () => (await storage.load()) !== null,
    async refresher () {
      if (!(await storage.load())) return false
      await refresh()
      return true
    },
  }
}
