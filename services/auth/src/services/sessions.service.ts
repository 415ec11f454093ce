import { randomUUID } from 'node:crypto'
import { DomainError, type Logger } from '@content/platform'
import { buildAccessClaims, type JwtAlgorithm } from '../core/access-claims.js'
import { decideRefresh, mayRevoke, type RefreshState } from '../core/refresh.rules.js'
import { signAccessToken } from '../security/access-tokens.js'
import { dummyPasswordHash, verifyPassword } from '../security/passwords.js'
import {
  familyStartedAt, hashRefreshToken, isWellFormedRefreshToken, newFamilyId, newRefreshToken, openSuccessor, sealSuccessor,
} from '../security/refresh-tokens.js'
import type { AccountsStore, UserRecord } from '../store/accounts.store.js'
import type { RefreshTokenState, TokensStore } from '../store/tokens.store.js'
import { createMemoryLoginLimiter, limiterKey, type FailureLimiter } from './login-limiter.js'

export interface SessionSettings {
  secret: Uint8Array
  issuer: string
  algorithm: JwtAlgorithm
  accessTtlSeconds: number
  refreshTtlSeconds: number
  rotation: boolean
  graceSeconds: number
  maxFailures: number
  failureWindowSeconds: number
}

export interface TokenPair { accessToken: string, expiresIn: number, refreshToken: string }

export interface SessionsService {
  login(username: string, password: string, clientAddress: string): Promise<TokenPair>
  refresh(refreshToken: string): Promise<TokenPair>
  revoke(callerId: number, refreshToken: string): Promise<void>
  /** An access token alone, for an API key: `user`'s id with the key's groups, for at most `maxTtlSeconds`. */
  accessToken(user: { id: number, groups: string[] }, maxTtlSeconds: number): Promise<{ accessToken: string, expiresIn: number }>
}

export interface SessionsDeps {
  accounts: AccountsStore
  tokens: TokensStore
  settings: SessionSettings
  log: Logger
  now?: () => number
  /** shared failure counts (Redis); by default each process counts in its own memory */
  limiter?: FailureLimiter
}

const loginFailed = () => new DomainError('LOGIN_FAILED', 'invalid username or password')
const refreshInvalid = () => new DomainError('REFRESH_TOKEN_INVALID', 'invalid refresh token')
const refreshNotFound = () => new DomainError('REFRESH_TOKEN_NOT_FOUND', 'refresh token not found')
const tooMany = (retryAfter: number) => new DomainError('TOO_MANY_REQUESTS',
  'too many failed logins; try again later', { retry_after: retryAfter })

const toRefreshState = (found: RefreshTokenState | null): RefreshState | null => found && {
  status: found.token.status, expiresAt: found.token.expiresAt, rotatedAt: found.token.rotatedAt, familyRevoked: found.familyRevoked,
}

/** What every flow below shares. */
class Sessions {
  readonly now: () => number
  readonly refreshTtlMs: number
  readonly log: Logger
  readonly limiter: FailureLimiter
  /** verified against for unknown usernames, so timing does not reveal which exist */
  readonly dummyHash = dummyPasswordHash()

  constructor (readonly deps: SessionsDeps) {
    this.now = deps.now ?? Date.now
    this.refreshTtlMs = deps.settings.refreshTtlSeconds * 1000
    this.log = deps.log.child({ component: 'sessions' })
    this.limiter = deps.limiter ?? createMemoryLoginLimiter({ maxFailures: deps.settings.maxFailures, windowMs: deps.settings.failureWindowSeconds * 1000 })
  }

  async access (user: { id: number, groups: string[] }, ttlSeconds: number): Promise<string> {
    const s = this.deps.settings
    const backend = (await this.deps.accounts.groups.list()).filter((g) => g.backendAuth).map((g) => g.name)
    const claims = buildAccessClaims({
      user, mayWrite: user.groups.some((g) => backend.includes(g)), issuer: s.issuer, algorithm: s.algorithm, now: this.now() / 1000, ttlSeconds, jti: randomUUID(),
    })
    return signAccessToken(claims, s.secret)
  }

  async pair (user: UserRecord, refreshToken: string): Promise<TokenPair> {
    const ttl = this.deps.settings.accessTtlSeconds
    return { accessToken: await this.access(user, ttl), expiresIn: ttl, refreshToken }
  }

  /**
   * The user a refresh token speaks for, while that user may still log in and the login is not older
   * than the user's last password change or disabling.
   */
  async activeUser (userId: number, familyId: string): Promise<UserRecord> {
    const user = await this.deps.accounts.users.get(userId)
    if (!user || user.disabled || familyStartedAt(familyId) < user.sessionsSince) throw refreshInvalid()
    return user
  }

  endFamily (familyId: string): Promise<boolean> {
    return this.deps.tokens.revokeFamily(familyId, this.now() + this.refreshTtlMs)
  }
}

async function login (ctx: Sessions, username: string, password: string, clientAddress: string): Promise<TokenPair> {
  const key = limiterKey(clientAddress, username)
  const limit = await ctx.limiter.check(key, ctx.now())
  if (limit.locked) throw tooMany(limit.retryAfterSeconds)
  const user = await ctx.deps.accounts.users.findByUsername(username)
  const valid = await verifyPassword(user?.passwordHash ?? await ctx.dummyHash, password)
  if (!user || !valid || user.disabled) {
    await ctx.limiter.fail(key, ctx.now())
    ctx.log.info({ username, clientAddress }, 'login failed')
    throw loginFailed()
  }
  await ctx.limiter.reset(key)
  const refreshToken = newRefreshToken()
  await ctx.deps.tokens.issue({
    hash: hashRefreshToken(refreshToken), userId: user.id, familyId: newFamilyId(ctx.now()), expiresAt: ctx.now() + ctx.refreshTtlMs,
  })
  return ctx.pair(user, refreshToken)
}

/** A successor for `token`; null when a concurrent renewal rotated it first. */
async function rotate (ctx: Sessions, token: string, found: RefreshTokenState): Promise<TokenPair | null> {
  const user = await ctx.activeUser(found.token.userId, found.token.familyId)
  const successor = newRefreshToken()
  const record = { hash: hashRefreshToken(successor), userId: user.id, familyId: found.token.familyId, expiresAt: ctx.now() + ctx.refreshTtlMs }
  if (!await ctx.deps.tokens.rotate(found.token.hash, record, sealSuccessor(token, successor), ctx.now())) return null
  return ctx.pair(user, successor)
}

async function renew (ctx: Sessions, token: string, attempt = 0): Promise<TokenPair> {
  const { settings, tokens } = ctx.deps
  const found = await tokens.find(hashRefreshToken(token), ctx.now())
  const decision = decideRefresh(toRefreshState(found), ctx.now(), { rotation: settings.rotation, graceMs: settings.graceSeconds * 1000 })
  if (decision === 'invalid' || !found) throw refreshInvalid()
  if (decision === 'theft') {
    await ctx.endFamily(found.token.familyId)
    ctx.log.warn({ userId: found.token.userId }, 'rotated-out refresh token reused; login family revoked')
    throw refreshInvalid()
  }
  if (decision === 'grace') {
    const successor = found.token.successor && openSuccessor(token, found.token.successor)
    if (!successor) throw refreshInvalid()
    return ctx.pair(await ctx.activeUser(found.token.userId, found.token.familyId), successor)
  }
  if (decision === 'extend') {
    const user = await ctx.activeUser(found.token.userId, found.token.familyId)
    if (!await tokens.extend(found.token.hash, ctx.now() + ctx.refreshTtlMs)) throw refreshInvalid()
    return ctx.pair(user, token)
  }
  const rotated = await rotate(ctx, token, found)
  if (rotated) return rotated
  // lost the race to a concurrent renewal: the token is rotated now, so the next look takes the grace path
  if (attempt === 0) return renew(ctx, token, 1)
  throw refreshInvalid()
}

async function revoke (ctx: Sessions, callerId: number, token: string): Promise<void> {
  if (!isWellFormedRefreshToken(token)) throw refreshNotFound()
  const found = await ctx.deps.tokens.find(hashRefreshToken(token), ctx.now())
  if (!found || !mayRevoke(toRefreshState(found), found.token.userId, callerId, ctx.now())) throw refreshNotFound()
  // the whole login family: a rotated-out predecessor must not bring the session back in its grace window
  if (!await ctx.endFamily(found.token.familyId)) throw refreshNotFound()
}

/** Login, renewal and revocation: the token rules of decisions §6 over the two stores. */
export function createSessionsService (deps: SessionsDeps): SessionsService {
  const ctx = new Sessions(deps)
  return {
    login: (username, password, clientAddress) => login(ctx, username, password, clientAddress),
    async refresh (refreshToken) {
      if (!isWellFormedRefreshToken(refreshToken)) throw refreshInvalid()
      return renew(ctx, refreshToken)
    },
    revoke: (callerId, refreshToken) => revoke(ctx, callerId, refreshToken),
    async accessToken (user, maxTtlSeconds) {
      const expiresIn = Math.max(1, Math.min(ctx.deps.settings.accessTtlSeconds, Math.floor(maxTtlSeconds)))
      return { accessToken: await ctx.access(user, expiresIn), expiresIn }
    },
  }
}
