#!/usr/bin/env node
// `node loadtest/autocannon/query-plans.mjs <objects.sqlite>`: SQLite's plan for each list of the scale
// bench's query runs (q1–q8 of bench.mjs), as the objects service compiles them (select.sqlite.ts), to
// show which index serves each one. The bench prints them after its runs; the store is opened read-only.
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

if (process.argv[2]) {
  const db = new Database(resolve(process.argv[2]), { readonly: true, fileMustExist: true })
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
