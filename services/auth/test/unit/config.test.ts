import { ConfigError } from '@content/platform'
import { describe, expect, it } from 'vitest'
import { loadAuthConfig } from '../../src/config.js'

const SECRET = 'x'.repeat(32)

function problems (env: NodeJS.ProcessEnv): string[] {
  try {
    loadAuthConfig(env)
    return []
  } catch (err) {
    if (err instanceof ConfigError) return err.problems
    throw err
  }
}

describe('auth config', () => {
  it('fills the documented defaults', () => {
    expect(loadAuthConfig({ SERVICE_SECRET: SECRET, JWT_SECRET: SECRET })).toMatchObject({
      GRPC_HOST: '0.0.0.0', GRPC_PORT: 50052, DATA_DIR: './data', STORE: 'sqlite', MONGODB_DB: 'content',
      JWT_ISSUER: 'content-objects', JWT_ALGORITHM: 'HS256', ACCESS_TOKEN_TTL: 600, REFRESH_TOKEN_TTL: 2_592_000,
      REFRESH_ROTATION: true, REFRESH_REUSE_GRACE_SECONDS: 10, ADMIN_USERNAME: 'admin', LOGIN_MAX_FAILURES: 5,
      LOGIN_FAILURE_WINDOW: 300,
    })
  })

  it.each<[string, NodeJS.ProcessEnv, string]>([
    ['a missing secret', { SERVICE_SECRET: SECRET }, 'JWT_SECRET: is required'],
    ['a missing service secret', { JWT_SECRET: SECRET }, 'SERVICE_SECRET: is required'],
    ['a short service secret', { JWT_SECRET: SECRET, SERVICE_SECRET: 'x'.repeat(31) }, 'SERVICE_SECRET: must be at least 32 bytes'],
    ['a 31-byte secret', { SERVICE_SECRET: SECRET, JWT_SECRET: 'x'.repeat(31) }, 'JWT_SECRET: must be at least 32 bytes'],
    ['a short multi-byte secret', { SERVICE_SECRET: SECRET, JWT_SECRET: 'é'.repeat(15) }, 'JWT_SECRET: must be at least 32 bytes'],
    ['an unsupported algorithm', { SERVICE_SECRET: SECRET, JWT_SECRET: SECRET, JWT_ALGORITHM: 'RS256' }, 'JWT_ALGORITHM'],
    ['mongodb without a url', { SERVICE_SECRET: SECRET, JWT_SECRET: SECRET, STORE: 'mongodb' }, 'MONGODB_URL: required when STORE=mongodb'],
    ['a non-boolean rotation flag', { SERVICE_SECRET: SECRET, JWT_SECRET: SECRET, REFRESH_ROTATION: 'maybe' }, 'REFRESH_ROTATION'],
  ])('rejects %s', (_label, env, expected) => {
    expect(problems(env).join('\n')).toContain(expected)
  })

  it('takes the accounts\' store from ACCOUNTS_STORE over STORE, with the URL that store needs', () => {
    expect(problems({ SERVICE_SECRET: SECRET, JWT_SECRET: SECRET, ACCOUNTS_STORE: 'postgres' }).join('\n')).toContain('DATABASE_URL: required when ACCOUNTS_STORE=postgres')
    expect(loadAuthConfig({ SERVICE_SECRET: SECRET, JWT_SECRET: SECRET, ACCOUNTS_STORE: 'postgres', DATABASE_URL: 'postgres://db/content' }).STORE).toBe('postgres')
    expect(loadAuthConfig({ SERVICE_SECRET: SECRET, JWT_SECRET: SECRET, STORE: 'postgres', DATABASE_URL: 'postgres://db/content' }).STORE).toBe('postgres')
    expect(problems({ SERVICE_SECRET: SECRET, JWT_SECRET: SECRET, STORE: 'postgres', DATABASE_URL: 'mysql://db' }).join('\n')).toContain('DATABASE_URL: must be a libpq URL')
  })

  it('accepts a 32-byte secret made of multi-byte characters and turns rotation off', () => {
    const config = loadAuthConfig({ SERVICE_SECRET: SECRET, JWT_SECRET: 'é'.repeat(16), REFRESH_ROTATION: 'false', JWT_ALGORITHM: 'HS512' })
    expect(config.REFRESH_ROTATION).toBe(false)
    expect(config.JWT_ALGORITHM).toBe('HS512')
  })
})
