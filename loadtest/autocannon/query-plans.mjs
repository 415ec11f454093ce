#!/usr/bin/env node
// `node loadtest/autocannon/query-plans.mjs <objects.sqlite | postgres://… URL>`: the store's plan for each
// list of the scale bench's query runs (q1–q8 of bench.mjs), as the objects service compiles them
// (select.sqlite.ts, select.postgres.ts), to show which index serves each one. The bench prints them after
// its runs. SQLite's store is opened read-only; on PostgreSQL (the URL naming the store's schema in its
// search_path, as the service's connections do: bench.mjs gives migrations.postgres.ts storeUrl) each list is run once
// under EXPLAIN ANALYZE.
import Database from 'better-sqlite3'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const dist = (path) => import(join(root, 'services/objects/dist/store/sqlite', path))
const { selectSql } = await dist('select.sqlite.js')
const { registerFunctions } = await dist('schema.sqlite.js')

const everyone = { statuses: ['on'], at: Date.now(), groups: [] }
const noFilter = { object_types: [], query: '' }
const objects = { kind: 'descendants', node: 1, order: 'id' }
const day = (d) => Date.parse(d)
const selection = (over) => ({ visibility: everyone, filter: noFilter, clauses: [], sort: [], after: null, offset: 0, limit: 21, count: true, ...over })
const clause = (field, op, values, group = null) => ({ field, op, values, group })

/** The lists of q1–q8 in the objects service's own terms (the big section is looked up by nickname). */
export function planQueries (big) {
  const tagged = { clauses: [clause('tags', 'eq', ['tag-7'])], sort: [{ field: 'publication_date', descending: true }] }
  return [
    ['(q1) tag filter, sort -publication_date', objects, selection({ ...tagged, limit: 20 })],
    ['(q2) the same, count=none', objects, selection({ ...tagged, limit: 20, count: false })],
    ['(q3) date range + custom property', objects, selection({ clauses: [clause('publication_date', 'between', [day('2020-01-02T00:00:00Z'), day('2020-01-03T12:00:00Z')]), clause('custom_properties.n', 'starts_with', ['15'])], limit: 20 })],
    ['(q4) OR of two titles\' contains', objects, selection({ clauses: [clause('title', 'contains', ['zephyr'], 0), clause('title', 'contains', ['quokka'], 1)], limit: 20 })],
    ['(q7/q8) descendants by cursor (page 1; a deep page adds the position)', objects, selection({ after: { keys: [], id: 200_000 }, count: false })],
    ['(children sorted) big section by -title', { kind: 'children', node: big, scope: 'all' }, selection({ sort: [{ field: 'title', descending: true }], limit: 20 })],
  ]
}

const target = process.argv[2]
if (target?.startsWith('postgres')) await postgresPlans(target)
else if (target) {
  const db = new Database(resolve(target), { readonly: true, fileMustExist: true })
  registerFunctions(db)
  const big = db.prepare("SELECT id FROM objects WHERE nickname = 'big'").pluck().get() ?? 0
  for (const [name, scope, s] of planQueries(big)) {
    const { page, count } = selectSql(scope, s)
    console.log(`${name}\n  page:  ${plan(db, page).join('\n         ')}`)
    if (count) console.log(`  count: ${plan(db, count).join('\n         ')}`)
  }
  db.close()
}

function plan (db, { sql, params }) {
  return db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params).map((r) => r.detail)
}

async function postgresPlans (url) {
  const { default: pg } = await import('pg')
  const { Db } = await import(join(root, 'services/objects/dist/store/postgres/db.postgres.js'))
  const { selectSql: pgSelectSql } = await import(join(root, 'services/objects/dist/store/postgres/select.postgres.js'))
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const db = new Db(client)
    const big = (await db.one("SELECT id FROM objects WHERE nickname = 'big'"))?.id ?? 0
    const explain = async ({ sql, params }) => (await db.all(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${sql}`, params)).map((r) => r['QUERY PLAN'])
    for (const [name, scope, s] of planQueries(big)) {
      const { page, count } = pgSelectSql(scope, s)
      console.log(`${name}\n  page:  ${(await explain(page)).join('\n         ')}`)
      if (count) console.log(`  count: ${(await explain(count)).join('\n         ')}`)
    }
  } finally {
    await client.end()
  }
}
