import { TEST_IDENTITY_ENV } from '@content/platform/testing'
import { describe, expect, it } from 'vitest'
import { type ConfigError, loadConfig } from '@content/platform'
import { posterEnv } from '../../src/config.js'

const KEY = 'x'.repeat(32)

describe('poster settings', () => {
  it('when only the signing key is set, then every other setting has its documented default', () => {
    expect(loadConfig(posterEnv, { ...TEST_IDENTITY_ENV, MEDIA_SIGNING_KEY: KEY })).toMatchObject({
      DATA_DIR: './data', MEDIA_STORE: 'local', MONGODB_DB: 'content', UPLOAD_MAX_BYTES: 26_214_400, UPLOAD_MAX_PIXELS: 50_000_000,
      UPLOAD_CONCURRENCY: 8, THUMBNAIL_URL_TTL: 3_600, THUMBNAIL_STORE_MAX_BYTES: 1_073_741_824, RENDER_CONCURRENCY: 2, RENDER_QUEUE: 32,
      RENDER_TIMEOUT_MS: 10_000, MEDIA_GC_INTERVAL: 60, MEDIA_GC_GRACE: 600, GRPC_PORT: 50053, OBJECTS_SERVICE_ADDR: '127.0.0.1:50051',
    })
  })

  it('when several settings are wrong, then every problem is listed at once', () => {
    const env = {
      ...TEST_IDENTITY_ENV, MEDIA_SIGNING_KEY: 'short', MEDIA_STORE: 'gridfs', UPLOAD_MAX_BYTES: '0', RENDER_CONCURRENCY: 'two', RENDER_QUEUE: '-1',
      THUMBNAIL_URL_TTL: '1.5', MEDIA_GC_GRACE: '0',
    }
    let problems: string[] = []
    try {
      loadConfig(posterEnv, env)
    } catch (err) {
      problems = (err as ConfigError).problems
    }
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'MEDIA_GC_GRACE', 'MEDIA_SIGNING_KEY', 'MONGODB_URL', 'RENDER_CONCURRENCY', 'RENDER_QUEUE', 'THUMBNAIL_URL_TTL', 'UPLOAD_MAX_BYTES',
    ])
  })

  it('when the signing key is missing, or GridFS lacks its URL, then each is named', () => {
    expect(() => loadConfig(posterEnv, {})).toThrow(/MEDIA_SIGNING_KEY: required/)
    expect(() => loadConfig(posterEnv, { ...TEST_IDENTITY_ENV, MEDIA_SIGNING_KEY: KEY, MEDIA_STORE: 'gridfs' })).toThrow(/MONGODB_URL: required when MEDIA_STORE=gridfs/)
    expect(loadConfig(posterEnv, { ...TEST_IDENTITY_ENV, MEDIA_SIGNING_KEY: KEY, MEDIA_STORE: 'gridfs', MONGODB_URL: 'mongodb://db' }).MEDIA_STORE).toBe('gridfs')
  })
})
