import { randomUUID } from 'node:crypto'
import { DomainError } from '@content/platform'
import { buildAccessClaims } from '../core/access-claims.js'
import { decideRefresh, mayRevoke, type RefreshState } from '../core/refresh.rules.js'
import { signAccessToken } from '../security/access-tokens.js'
import { verifyPassword } from '../security/passwords.js'
import {
  familyStartedAt, hashRefreshToken, isWellFormedRefreshToken, newFamilyId, newRefreshToken, openSuccessor, sealSuccessor,
} from '../security/refresh-tokens.js'
import type { UserRecord } from '../store/users.store.js'
import type { RefreshTokenState } from '../store/tokens.store.js'
import type { ServiceDeps } from './deps.js'
import { limiterKey } from './login-limiter.js'

// Login, renewal and revocation: the token rules of decisions §6 over the two stores.

export interface TokenPair { accessToken: string, expiresIn: number, refreshToken: string }

/** What issuing an access token reads: the groups' backend rights, the token settings, the clock. */
export type AccessDeps = Pick<ServiceDeps, 'accounts' | 'settings' | 'now'>

const loginFailed = () => new DomainError('LOGIN_FAILED', 'invalid username or password')
const refreshInvalid = () => new DomainError('REFRESH_TOKEN_INVALID', 'invalid refresh token')
const refreshNotFound = () => new DomainError('REFRESH_TOKEN_NOT_FOUND', 'refresh token not found')
const tooMany = (retryAfter: number) => new DomainError('TOO_MANY_REQUESTS',
  'too many failed logins; try again later', { retry_after: retryAfter })

const toRefreshState = (found: RefreshTokenState | null): RefreshState | null => found && {
  status: found.token.status, expiresAt: found.token.expiresAt, rotatedAt: found.token.rotatedAt, familyRevoked: found.familyRevoked,
}

/** When a refresh token issued, renewed or revoked now stops mattering. */
const refreshExpiry = (deps: ServiceDeps): number => deps.now() + deps.settings.refreshTtlSeconds * 1000

export async function login (deps: ServiceDeps, username: string, password: string, clientAddress: string): Promise<TokenPair> {
  const { limiter } = deps
  const key = limiterKey(clientAddress, username)
  const limit = await limiter.check(key)
  if (limit.locked) throw tooMany(limit.retryAfterSeconds)
  const user = await deps.accounts.users.findByUsername(username)
  const valid = await verifyPassword(user?.passwordHash ?? await deps.dummyHash, password)
  if (!user || !valid || user.disabled) {
    await limiter.fail(key)
    deps.log.info({ username, clientAddress }, 'login failed')
    throw loginFailed()
  }
  await limiter.reset(key)
  const refreshToken = newRefreshToken()
  const familyId = newFamilyId(deps.now())
  await deps.tokens.issue({ hash: hashRefreshToken(refreshToken), userId: user.id, familyId, expiresAt: refreshExpiry(deps) })
  return pair(deps, user, refreshToken, familyId)
}

export async function refresh (deps: ServiceDeps, refreshToken: string): Promise<TokenPair> {
  if (!isWellFormedRefreshToken(refreshToken)) throw refreshInvalid()
  return renew(deps, refreshToken)
}

export async function revoke (deps: ServiceDeps, callerId: number, token: string): Promise<void> {
  if (!isWellFormedRefreshToken(token)) throw refreshNotFound()
  const found = await deps.tokens.find(hashRefreshToken(token), deps.now())
  if (!found || !mayRevoke(toRefreshState(found), found.token.userId, callerId, deps.now())) throw refreshNotFound()
  // the whole login family: a rotated-out predecessor must not bring the session back in its grace window
  if (!await endFamily(deps, found.token.familyId)) throw refreshNotFound()
}

/** An access token alone, for an API key: `user`'s id with the key's groups, for at most `maxTtlSeconds`. */
export async function accessToken (deps: AccessDeps, user: { id: number, groups: string[] }, maxTtlSeconds: number):
Promise<{ accessToken: string, expiresIn: number }> {
  const expiresIn = Math.max(1, Math.min(deps.settings.accessTtlSeconds, Math.floor(maxTtlSeconds)))
  return { accessToken: await access(deps, user, expiresIn), expiresIn }
}

async function access (deps: AccessDeps, user: { id: number, groups: string[] }, ttlSeconds: number, session?: string): Promise<string> {
  const s = deps.settings
  const backend = (await deps.accounts.groups.list()).filter((g) => g.backendAuth).map((g) => g.name)
  const claims = buildAccessClaims({
    user, mayWrite: user.groups.some((g) => backend.includes(g)), issuer: s.issuer, algorithm: s.algorithm, now: deps.now() / 1000, ttlSeconds, jti: randomUUID(),
    ...(session === undefined ? {} : { sid: session }),
  })
  return signAccessToken(claims, s.secret)
}

/** `familyId`: the login the access token belongs to (its `sid`: live streams end with it, decisions §17). */
async function pair (deps: AccessDeps, user: UserRecord, refreshToken: string, familyId: string): Promise<TokenPair> {
  const ttl = deps.settings.accessTtlSeconds
  return { accessToken: await access(deps, user, ttl, familyId), expiresIn: ttl, refreshToken }
}

/**
 * Decisions §17: whether each login (`session`, an access token's `sid`) of each user may still go on — the
 * user exists and is enabled, the login is not older than the user's last password change or disabling,
 * and it was not revoked. A token without a session (an API key's) depends on its user alone.
 */
export async function sessionsAlive (deps: ServiceDeps, sessions: readonly { userId: number, session: string }[]): Promise<boolean[]> {
  const now = deps.now()
  return Promise.all(sessions.map(async ({ userId, session }) => {
    const user = await deps.accounts.users.get(userId)
    if (!user || user.disabled) return false
    if (session === '') return true
    if (!/^[A-Za-z0-9_.-]{1,100}$/.test(session) || familyStartedAt(session) < user.sessionsSince) return false
    return !await deps.tokens.familyRevoked(session, now)
  }))
}

/**
 * The user a refresh token speaks for, while that user may still log in and the login is not older
 * than the user's last password change or disabling.
 */
async function activeUser (deps: ServiceDeps, userId: number, familyId: string): Promise<UserRecord> {
  const user = await deps.accounts.users.get(userId)
  if (!user || user.disabled || familyStartedAt(familyId) < user.sessionsSince) throw refreshInvalid()
  return user
}

function endFamily (deps: ServiceDeps, familyId: string): Promise<boolean> {
  return deps.tokens.revokeFamily(familyId, refreshExpiry(deps))
}

/** A successor for `token`; null when a concurrent renewal rotated it first. */
async function rotate (deps: ServiceDeps, token: string, found: RefreshTokenState): Promise<TokenPair | null> {
  const user = await activeUser(deps, found.token.userId, found.token.familyId)
  const successor = newRefreshToken()
  const record = { hash: hashRefreshToken(successor), userId: user.id, familyId: found.token.familyId, expiresAt: refreshExpiry(deps) }
  if (!await deps.tokens.rotate(found.token.hash, record, sealSuccessor(token, successor), deps.now())) return null
  return pair(deps, user, successor, found.token.familyId)
}

async function renew (deps: ServiceDeps, token: string, attempt = 0): Promise<TokenPair> {
  const { settings, tokens } = deps
  const found = await tokens.find(hashRefreshToken(token), deps.now())
  const decision = decideRefresh(toRefreshState(found), deps.now(), { rotation: settings.rotation, graceMs: settings.graceSeconds * 1000 })
  if (decision === 'invalid' || !found) throw refreshInvalid()
  if (decision === 'theft') {
    await endFamily(deps, found.token.familyId)
    deps.log.warn({ userId: found.token.userId }, 'rotated-out refresh token reused; login family revoked')
    throw refreshInvalid()
  }
  if (decision === 'grace') {
    const successor = found.token.successor && openSuccessor(token, found.token.successor)
    if (!successor) throw refreshInvalid()
    return pair(deps, await activeUser(deps, found.token.userId, found.token.familyId), successor, found.token.familyId)
  }
  if (decision === 'extend') {
    const user = await activeUser(deps, found.token.userId, found.token.familyId)
    if (!await tokens.extend(found.token.hash, refreshExpiry(deps))) throw refreshInvalid()
    return pair(deps, user, token, found.token.familyId)
  }
  const rotated = await rotate(deps, token, found)
  if (rotated) return rotated
  // lost the race to a concurrent renewal: the token is rotated now, so the next look takes the grace path
  if (attempt === 0) return renew(deps, token, 1)
  throw refreshInvalid()
}
