// Credentials for tests that start services in-process: one fixed configuration, service identities
// from it, and access tokens minted for any caller, as the auth service would sign them.
import { SignJWT } from 'jose'
import type { Caller } from './identity/call-identity.js'
import { serviceIdentity, type IdentityConfig } from './identity/settings.js'

export const TEST_IDENTITY: IdentityConfig = Object.freeze({
  SERVICE_SECRET: 'service-secret-for-tests-only-0123456789',
  JWT_SECRET: 'jwt-secret-for-tests-only-0123456789abcdef',
  JWT_ISSUER: 'content-objects',
  JWT_ALGORITHM: 'HS256',
})

/** The environment a service process needs to take part in authenticated calls. */
export const TEST_IDENTITY_ENV: Record<string, string> = { ...TEST_IDENTITY }

export const testIdentity = (name: string) => serviceIdentity(name, TEST_IDENTITY)

/** An access token for `caller` (none for anonymous), valid for an hour. */
export async function userTokenFor (caller: TestCaller | null | undefined): Promise<string | undefined> {
  if (!caller || caller.user_id === 0) return undefined
  const now = Math.floor(Date.now() / 1000)
  return new SignJWT({ id: caller.user_id, groups: caller.groups, backend_auth: caller.may_write ?? false })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuer(TEST_IDENTITY.JWT_ISSUER).setSubject(String(caller.user_id))
    .setIssuedAt(now).setExpirationTime(now + 3600).sign(new TextEncoder().encode(TEST_IDENTITY.JWT_SECRET))
}

export type TestCaller = Pick<Caller, 'user_id' | 'groups'> & { may_write?: boolean }

/** The administrator the admin tool acts for in tests. */
export const TEST_ADMINISTRATOR: TestCaller = Object.freeze({ user_id: 1, groups: ['administrator'] })

/**
 * A client whose calls act for the `caller` a request names, sent as an access token the way the
 * gateway sends its users'; an administration call without one acts for an administrator (the admin tool).
 */
export function actingAsRequested<C extends object> (client: C, administration: Iterable<string> = []): C {
  const admin = new Set(administration)
  return new Proxy(client, {
    get (target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown
      if (typeof value !== 'function' || typeof name !== 'string' || name === 'close') return value
      return async (request: { caller?: TestCaller }, options: { userToken?: string } = {}) => {
        const caller = request.caller ?? (admin.has(name) ? TEST_ADMINISTRATOR : undefined)
        const userToken = options.userToken ?? await userTokenFor(caller)
        return (value as (...args: unknown[]) => unknown).call(target, request, { ...options, userToken })
      }
    },
  })
}

/**
 * mulberry32: numbers in [0, 1) that are the same for a seed on every run, for tests that generate their
 * cases. A linear congruential generator in floats loses its product's low bits (56 distinct texts of 5,000
 * in json-body.test.ts).
 */
export function seededRandom (seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export { TEST_POSTGRES_URL, createTestDatabase, onServer, type TestDatabase } from './testing/test-database.js'
export { freePort, startPostgresCluster, type PostgresCluster } from './testing/postgres-cluster.js'
