/** Access-token bookkeeping for long runs: tokens live 600 s by default, runs last longer. */

export interface TokenData { access_token: string, expires_in: number, refresh_token?: string }
export interface Session { accessToken: string, refreshToken?: string, expiresAtMs: number }

type Dict = Record<string, unknown>
const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The token data of a POST /auth or GET /auth envelope, or undefined when it is not there. */
export function tokenDataOf (body: unknown): TokenData | undefined {
  if (!isDict(body) || !isDict(body.data)) return undefined
  const d = body.data
  if (typeof d.access_token !== 'string' || typeof d.expires_in !== 'number') return undefined
  return { access_token: d.access_token, expires_in: d.expires_in, ...(typeof d.refresh_token === 'string' ? { refresh_token: d.refresh_token } : {}) }
}

export function sessionFrom (data: TokenData, nowMs: number): Session {
  return { accessToken: data.access_token, expiresAtMs: nowMs + data.expires_in * 1000, ...(data.refresh_token ? { refreshToken: data.refresh_token } : {}) }
}

/** True when there is no session or it expires within `marginMs`. */
export function needsRenewal (session: Session | undefined, nowMs: number, marginMs = 30_000): boolean {
  return session === undefined || session.expiresAtMs - nowMs <= marginMs
}

/** A JWT has three base64url parts; enough to catch an empty or mangled token in a check. */
export const looksLikeJwt = (token: unknown): boolean =>
  typeof token === 'string' && /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)
