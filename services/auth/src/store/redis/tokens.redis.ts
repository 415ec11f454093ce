import { DomainError, present } from '@content/platform'
import type { Redis } from 'ioredis'
import type { NewRefreshToken, RefreshTokenRecord, TokensStore } from '../tokens.store.js'

export const KEY_PREFIX = 'content:auth:'
const tokenKey = (hash: string) => `${KEY_PREFIX}rt:${hash}`
const familyKey = (familyId: string) => `${KEY_PREFIX}family:${familyId}`

/** active → rotated, successor issued, in one step; 0 when the token is no longer active. */
const ROTATE = `
if redis.call('HGET', KEYS[1], 's') ~= 'active' then return 0 end
redis.call('HSET', KEYS[1], 's', 'rotated', 'r', ARGV[1], 'n', ARGV[2])
redis.call('HSET', KEYS[2], 'u', ARGV[3], 'f', ARGV[4], 'e', ARGV[5], 's', 'active')
redis.call('PEXPIREAT', KEYS[2], ARGV[5])
return 1`

const EXTEND = `
if redis.call('HGET', KEYS[1], 's') ~= 'active' then return 0 end
redis.call('HSET', KEYS[1], 'e', ARGV[1])
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
return 1`

function toRecord (hash: string, fields: Record<string, string>): RefreshTokenRecord {
  return {
    hash, userId: Number(fields.u), familyId: present(fields.f, 'the family of a stored refresh token'), expiresAt: Number(fields.e),
    status: fields.s === 'rotated' ? 'rotated' : 'active',
    rotatedAt: fields.r === undefined ? null : Number(fields.r), successor: fields.n ?? null,
  }
}

const unavailable = () => new DomainError('SERVICE_UNAVAILABLE', 'token store unavailable; try again later')

/** Any Redis failure becomes UNAVAILABLE: refresh and revoke fail closed. */
async function guarded<T> (work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch {
    throw unavailable()
  }
}

/**
 * Refresh-token state in Redis. Keys (prefixed `content:auth:`) expire with their token (PXAT), so
 * nothing needs sweeping; the server must not evict them (`maxmemory-policy noeviction`) and must
 * persist them (`appendonly yes`). The two-key scripts assume a single Redis, not a cluster.
 */
export function createRedisTokensStore (redis: Redis): TokensStore {
  const issueToken = (token: NewRefreshToken) => redis.multi()
    .hset(tokenKey(token.hash), { u: token.userId, f: token.familyId, e: token.expiresAt, s: 'active' })
    .pexpireat(tokenKey(token.hash), token.expiresAt)
    .exec()

  return {
    issue: (token) => guarded(async () => {
      const results = await issueToken(token)
      if (!results || results.some(([err]) => err)) throw new Error('issue failed')
    }),
    find: (hash, now) => guarded(async () => {
      const fields = await redis.hgetall(tokenKey(hash))
      if (fields.s === undefined) return null
      const token = toRecord(hash, fields)
      if (token.expiresAt <= now) return null
      return { token, familyRevoked: await redis.exists(familyKey(token.familyId)) === 1 }
    }),
    rotate: (hash, successor, sealed, now) => guarded(async () => {
      const done = await redis.eval(ROTATE, 2, tokenKey(hash), tokenKey(successor.hash),
        now, sealed, successor.userId, successor.familyId, successor.expiresAt)
      return done === 1
    }),
    extend: (hash, expiresAt) => guarded(async () => await redis.eval(EXTEND, 1, tokenKey(hash), expiresAt) === 1),
    revokeFamily: (familyId, until) => guarded(async () =>
      await redis.set(familyKey(familyId), '1', 'PXAT', until, 'NX') === 'OK'),
    familyRevoked: (familyId) => guarded(async () => await redis.exists(familyKey(familyId)) === 1),
    async close () { /* the client belongs to the process; it quits it */ },
  }
}
