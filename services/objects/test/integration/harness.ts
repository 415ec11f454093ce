import { mkdtempSync, rmSync } from 'node:fs'
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient, createLogger, previewKey, toTransportError, type RpcServer } from '@content/platform'
import { actingAsRequested, TEST_ADMINISTRATOR, testIdentity } from '@content/platform/testing'
import { loadContentProtos, type v1 } from '@content/protos'
import type { ChangeFeed } from '../../src/core/change-feed.js'
import type { Status } from '../../src/core/types.js'
import { buildObjectsServer, createChangeFeed, OBJECTS_ADMINISTRATION } from '../../src/server.js'
import type { ObjectsStore } from '../../src/core/ports.js'
import { openSqliteStore } from '../../src/store/sqlite/sqlite.store.js'
import { openTestStore, tempSchema } from '../support/temp-postgres.js'
import { SITE } from './site.fixture.js'

export interface Harness {
  store: ObjectsStore
  feed: ChangeFeed
  objects: ReturnType<typeof createClient<v1.ObjectServiceDefinition>>
  tree: ReturnType<typeof createClient<v1.TreeServiceDefinition>>
  media: ReturnType<typeof createClient<v1.MediaServiceDefinition>>
  address: string
  clock: { now: number }
  close(): Promise<void>
}

export interface HarnessOptions {
  visibleStatuses?: Status[]
  windowFilter?: boolean
  now?: number
  uploadTtlMs?: number
  previewTtlMs?: number
}

/**
 * The store the RPC tests run on: SQLite, or PostgreSQL when OBJECTS_TEST_STORE=postgres (the
 * `objects-postgres` test project runs every RPC test file so, vitest.postgres.config.ts).
 */
export const TEST_STORE = process.env.OBJECTS_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite'

/** A store for a harness: a SQLite file in a temp dir, or a PostgreSQL schema of its own; `drop` removes it once closed. */
async function harnessStore (now: () => number): Promise<{ store: ObjectsStore, drop: () => Promise<void> }> {
  if (TEST_STORE === 'postgres') {
    const { url, drop } = await tempSchema()
    return { store: await openTestStore(url, { now }), drop }
  }
  const dir = mkdtempSync(join(tmpdir(), 'objects-rpc-'))
  return { store: openSqliteStore(join(dir, 'objects.sqlite'), { publicationNickname: 'publication', now }), drop: async () => rmSync(dir, { recursive: true, force: true }) }
}

/** A real server on 127.0.0.1:0 over a real store (TEST_STORE). */
export async function startHarness (options: HarnessOptions = {}): Promise<Harness> {
  const clock = { now: options.now ?? Date.now() }
  const now = () => clock.now
  const { store, drop } = await harnessStore(now)
  const feed = await createChangeFeed(store, now)
  const log = createLogger({ service: 'objects', level: 'silent' })
  const rpc: RpcServer = buildObjectsServer({
    log, store, feed, now, rpc: { identity: testIdentity('objects').verifiers }, writerGroups: ['administrator', 'editor'], uploadTtlMs: options.uploadTtlMs ?? 1_800_000,
    preview: { key: previewKey('preview-key-for-tests'), ttlMs: options.previewTtlMs ?? 3_600_000 },
    reads: { store, now, visibility: { visibleStatuses: options.visibleStatuses ?? ['on'], windowFilter: options.windowFilter ?? true, writerGroups: ['administrator', 'editor'] } },
  })
  const port = await rpc.listen('127.0.0.1', 0)
  const address = `127.0.0.1:${port}`
  const { v1: proto } = loadContentProtos().content
  const settings = { timeoutMs: 5_000, identity: testIdentity('gateway').identity }
  const objects = actingAsRequested(createClient<v1.ObjectServiceDefinition>(proto.ObjectService, address, settings), OBJECTS_ADMINISTRATION)
  const tree = actingAsRequested(createClient<v1.TreeServiceDefinition>(proto.TreeService, address, settings))
  const media = actingAsRequested(createClient<v1.MediaServiceDefinition>(proto.MediaService, address, settings))
  return {
    store, feed, objects, tree, media, address, clock,
    async close () {
      objects.close()
      tree.close()
      media.close()
      feed.close()
      await rpc.shutdown(1_000)
      await store.close()
      await drop()
    },
  }
}

/**
 * A test file's harness, as fastify's demo's `build(t)`: registers the hooks that start a harness (with
 * `fixtures` imported, SITE's unless null) before each test — or once before all of them, `per: 'file'` —
 * and close it after; answers the harness and the fixtures' ref → id, filled in once started.
 */
export function harnessTest (options: HarnessOptions & { per?: 'test' | 'file' } = {}, fixtures: unknown = SITE): { h: Harness, ids: Record<string, number> } {
  const h = {} as Harness
  const ids: Record<string, number> = {}
  const [before, after] = options.per === 'file' ? [beforeAll, afterAll] : [beforeEach, afterEach]
  before(async () => {
    Object.assign(h, await startHarness(options))
    for (const key of Object.keys(ids)) delete ids[key]
    if (fixtures !== null) Object.assign(ids, await importFixtures(h, fixtures))
  })
  after(async () => { await h.close() })
  return { h, ids }
}

/** The object types the tests' saves may write: a media type (audio) and the publication's (area) are left out. */
export const WRITABLE = ['document', 'section', 'event', 'image', 'video', 'b_e_file']

export const anonymous = { user_id: 0, groups: [] as string[] }
export const member = { user_id: 5, groups: ['members'] }
export const stranger = { user_id: 6, groups: ['others'] }
export const editor = { user_id: 2, groups: ['editor'] }
export const admin = TEST_ADMINISTRATOR

/** The failure of a call as the gateway would see it. */
export async function failure (promise: Promise<unknown>): Promise<{ httpStatus: number, reason: string, message: string, details: unknown }> {
  try {
    await promise
  } catch (err) {
    const t = toTransportError(err)
    return { httpStatus: t.httpStatus, reason: t.reason, message: t.message, details: t.details }
  }
  throw new Error('expected the call to fail')
}

export const KNOWN_GROUPS = ['administrator', 'editor', 'members']

export async function importFixtures (h: Harness, fixtures: unknown): Promise<Record<string, number>> {
  const res = await h.objects.ImportFixtures({ fixtures_json: JSON.stringify(fixtures), known_groups: KNOWN_GROUPS, dry_run: false })
  return res.refs
}

export const iso = (ms: number) => new Date(ms).toISOString()
