import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { createTestDatabase, onServer, type TestDatabase } from '@content/platform/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getBytes, photo, upload } from './support/media.js'
import { login } from './support/seeded.js'
import { ADMIN, http, removeDir, startSystem, type RunningSystem } from './support/system.js'

/** `npm start` with auth and poster on PostgreSQL (ACCOUNTS_STORE, MEDIA_STORE), the objects service on SQLite. */
let database: TestDatabase
let system: RunningSystem
beforeAll(async () => {
  database = await createTestDatabase('npm_start')
  system = await startSystem({ ACCOUNTS_STORE: 'postgres', MEDIA_STORE: 'postgres', DATABASE_URL: database.url })
}, 120_000)
afterAll(async () => {
  await system?.stop()
  if (system) removeDir(system.dataDir)
  await database?.drop()
})

describe('npm start with ACCOUNTS_STORE=postgres MEDIA_STORE=postgres DATABASE_URL=…', () => {
  it('keeps the accounts, the logins and the media in that database, the objects in SQLite', async () => {
    const { base, dataDir } = system
    const tokens = await login(base, ADMIN.username, ADMIN.password)
    const bytes = await photo(7, 200, 120)
    const up = await upload(base, tokens.access_token, 'image', 'dune.jpg', bytes, 'image/jpeg')
    expect(up.status).toBe(200)
    const created = await http(base, 'POST', '/objects', {
      headers: { authorization: `Bearer ${tokens.access_token}` }, body: { data: { object_type: 'image', title: 'Dune', parents: [1], upload_token: up.body.data.upload_token } },
    })
    expect(created.status).toBe(201)
    expect((await getBytes(`${base}/media/${created.body.data.object.id}/dune.jpg`)).bytes.equals(bytes)).toBe(true)
    const counts = await onServer((client) => client.query<{ users: number, tokens: number, originals: number }>(`SELECT
      (SELECT count(*)::int FROM auth.users) AS users, (SELECT count(*)::int FROM auth.refresh_tokens) AS tokens,
      (SELECT count(*)::int FROM poster.originals) AS originals`), database.url)
    expect(counts.rows).toEqual([{ users: 1, tokens: 1, originals: 1 }])
    expect(existsSync(join(dataDir, 'objects.sqlite'))).toBe(true)
    expect(existsSync(join(dataDir, 'auth.sqlite'))).toBe(false)
  })
})
