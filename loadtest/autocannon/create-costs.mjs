#!/usr/bin/env node
// `node loadtest/autocannon/create-costs.mjs`: creates on the PostgreSQL objects store alone, in-process, as
// the save RPC composes them (core's createObject, then savedView for the answer): CREATE_COUNT (2,000)
// documents under a section of the bench's store (CREATE_STORE_OBJECTS, 10,000 objects, imported first as
// the bench imports it, so that statements are planned for tables of that size: planned on near-empty
// tables, they scan them whole ever after), CREATE_CONCURRENCY (10) at a time, CREATE_ROUNDS (3) times,
// each round on a fresh schema of a database of its own on the machine's server (TEST_POSTGRES_URL),
// dropped at the end. Prints creates/s, this process's CPU a create and that of every `postgres` process
// on the machine (run it on a quiet server: another database's work counts too), and the statements that
// read a whole table during the round. Without the gateway, the gRPC call and the bench's client, what is
// left is the store's own cost; OBJECTS_DIST (the objects service's `dist` of another checkout) measures
// another build, for a before and after in alternating runs.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { OWN_FIELD_DEFAULTS } from '@content/api-schema'
import { createLogger } from '@content/platform'
import { openPostgres } from '@content/platform/postgres'
import { createTestDatabase } from '@content/platform/testing'
import pg from 'pg'
import { benchFixtures } from './fixtures.mjs'
import { processCpuSeconds } from './process-cpu.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const dist = resolve(process.env.OBJECTS_DIST ?? join(root, 'services/objects/dist'))
const count = Number(process.env.CREATE_COUNT ?? 2_000)
const concurrency = Number(process.env.CREATE_CONCURRENCY ?? 10)
const rounds = Number(process.env.CREATE_ROUNDS ?? 3)
const storeObjects = Number(process.env.CREATE_STORE_OBJECTS ?? 10_000)
const WARM_UP = Math.min(200, count)

const { openPostgresStore } = await import(join(dist, 'store/postgres/postgres.store.js'))
const { createObject } = await import(join(dist, 'core/writes/objects.writes.js'))
const { savedView } = await import(join(dist, 'core/writes/saved-view.js'))
const { importFixtures } = await import(join(dist, 'core/fixtures.import.js'))

/** CPU seconds of every `postgres` process on the machine (the server's backends, WAL writer, checkpointer…). */
const postgresCpu = () => readdirSync('/proc').filter((p) => /^\d+$/.test(p)).reduce((sum, pid) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres' ? sum + processCpuSeconds(Number(pid)) : sum
  } catch {
    return sum // ended meanwhile
  }
}, 0)

const database = await createTestDatabase('create_costs')
const onDatabase = async (sql) => {
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  try { return (await client.query(sql)).rows } finally { await client.end() }
}
/** Each table's whole-table scans and the rows they read, as PostgreSQL counts them: a statement planned for a scan shows here. */
const tableScans = async (schema) => new Map((await onDatabase(`SELECT relname, seq_scan, seq_tup_read FROM pg_stat_user_tables WHERE schemaname = '${schema}'`))
  .map((t) => [t.relname, [Number(t.seq_scan), Number(t.seq_tup_read)]]))
const log = createLogger({ service: 'objects', level: 'silent' })
const visibility = { statuses: ['on'], at: null, groups: [] }
const columns = { ...OWN_FIELD_DEFAULTS, file: null }
const failures = []
try {
  // the stores' schemas find pg_trgm's operator classes in public, through their search_path
  await onDatabase('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public')
  console.log(`${count} creates a round, ${concurrency} at a time, on a store of ${storeObjects} objects, objects service build ${dist}`)
  for (let round = 1; round <= rounds; round++) {
    const schema = `create_costs_${round}`
    await onDatabase(`CREATE SCHEMA ${schema}`)
    const url = new URL(database.url)
    url.searchParams.set('options', `-c search_path=${schema},public`)
    const settings = { DATABASE_URL: url.toString(), PG_POOL_SIZE: concurrency, PG_STATEMENT_TIMEOUT_MS: 30_000, PG_ACQUIRE_TIMEOUT_MS: 10_000 }
    const store = await openPostgresStore(openPostgres({ settings, applicationName: 'create-costs', log }), { publicationNickname: 'publication', schema })
    const { refs } = await importFixtures(store, { fixtures_json: JSON.stringify(benchFixtures({ total: storeObjects })), known_groups: [], dry_run: false }, Date.now())
    const parent = refs.s9
    const create = (i) => store.write(function * (tx) {
      const saved = yield * createObject(tx, {
        object_type: 'document', nickname: null, status: 'on', read_groups: [], write_groups: [], user_id: 1, extras: {},
        columns: { ...columns, title: `Document ${round}-${i}`, body: `<p>Body of ${i}. ${'Lorem ipsum dolor sit amet. '.repeat(8)}</p>` },
        links: { parents: [parent], relations: [] },
      }, Date.now())
      return yield * savedView(tx, saved, visibility)
    })
    try {
      for (let i = 0; i < WARM_UP; i++) await create(i)
      const before = await tableScans(schema)
      let next = WARM_UP
      const started = performance.now()
      const ownBefore = process.cpuUsage()
      const serverBefore = postgresCpu()
      await Promise.all(Array.from({ length: concurrency }, async () => {
        while (next < WARM_UP + count) {
          const view = await create(next++)
          if (view?.object_type !== 'document') failures.push(`round ${round}: a create answered ${JSON.stringify(view)}`)
        }
      }))
      const seconds = (performance.now() - started) / 1000
      const own = process.cpuUsage(ownBefore)
      const server = postgresCpu() - serverBefore
      const ms = (cpuSeconds) => ((cpuSeconds * 1000) / count).toFixed(3)
      console.log(`round ${round}: ${Math.round(count / seconds)} creates/s, CPU a create: this process ${ms((own.user + own.system) / 1e6)} ms, postgres ${ms(server)} ms`)
      // the statistics collector's counts reach the view once the backends report them (at most a second later)
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      for (const [table, [scans, rows]] of await tableScans(schema)) {
        const [scansThen, rowsThen] = before.get(table) ?? [0, 0]
        if (rows - rowsThen > count) console.log(`  ${table}: ${scans - scansThen} whole-table scans, ${rows - rowsThen} rows read`)
      }
    } finally {
      await store.close()
    }
  }
} finally {
  await database.drop()
}
if (failures.length > 0) {
  console.error(failures.slice(0, 5).join('\n'))
  process.exit(1)
}
