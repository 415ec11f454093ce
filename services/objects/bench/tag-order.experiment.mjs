#!/usr/bin/env node
// The floor of `filter[tags]=…&sort=-publication_date` (q1/q2 of the scale bench) in today's shape and in
// another: today the tag's objects come from `object_tags_by_tag` and are sorted (a tag of a million-object
// store holds thousands); the other keeps each tag row's publication date beside it, in an index that
// gives the order, so a page reads twenty entries. Runs on a copy of a store the in-process scale bench
// loaded (services/objects/bench/store-scale.mjs):
//
//   node services/objects/bench/tag-order.experiment.mjs /tmp/content-store-bench/scale-1000000.sqlite
import Database from 'better-sqlite3'
import { copyFileSync, rmSync } from 'node:fs'
import { selectSql } from '../dist/store/sqlite/select.sqlite.js'
import { registerFunctions } from '../dist/store/sqlite/schema.sqlite.js'
import { VISIBLE, visibilityParams } from '../dist/store/sqlite/rows.sqlite.js'

const source = process.argv[2]
const copy = `${source}.experiment-${process.pid}`
copyFileSync(source, copy)
const db = new Database(copy)
registerFunctions(db)
const runs = Number(process.env.RUNS ?? 200)
const vis = { statuses: ['on'], at: Date.now(), groups: [] }

/** CPU ms per run of a statement (after a tenth as many warm-up runs). */
function cost (sql, params) {
  const stmt = db.prepare(sql)
  for (let i = 0; i < runs / 10; i++) stmt.all(params)
  const before = process.cpuUsage()
  for (let i = 0; i < runs; i++) stmt.all(params)
  const used = process.cpuUsage(before)
  return ((used.user + used.system) / runs / 1000).toFixed(3)
}

const selection = (count) => ({
  visibility: vis, filter: { object_types: [], query: '' }, after: null, offset: 0, limit: 20, count,
  clauses: [{ field: 'tags', op: 'eq', values: ['tag-7'], group: null }], sort: [{ field: 'publication_date', descending: true }],
})
const today = selectSql({ kind: 'descendants', node: 1, order: 'id' }, selection(true))
const tagRows = db.prepare("SELECT COUNT(*) FROM object_tags WHERE tag_id = (SELECT id FROM tags WHERE name = 'tag-7')").pluck().get()
console.log(`tag-7: ${tagRows} objects; CPU ms per statement, ${runs} runs`)
console.log(`today: page ${cost(today.page.sql, today.page.params)}, count ${cost(today.count.sql, today.count.params)}`)

const started = Date.now()
db.exec(`CREATE TABLE tag_dates AS SELECT ot.tag_id, o.publication_date, ot.object_id FROM object_tags ot JOIN objects o ON o.id = ot.object_id;
  CREATE INDEX tag_dates_order ON tag_dates(tag_id, publication_date DESC, object_id)`)
console.log(`the other shape: built in ${Date.now() - started} ms`)
const rows = `FROM tag_dates td CROSS JOIN closure c ON c.ancestor_id = 1 AND c.descendant_id = td.object_id JOIN objects o ON o.id = td.object_id
  WHERE td.tag_id = (SELECT id FROM tags WHERE name = 'tag-7') AND ${VISIBLE}`
const params = visibilityParams(vis)
const page = `SELECT td.object_id AS id ${rows} ORDER BY td.publication_date DESC, td.object_id LIMIT 20`
console.log(`other: page ${cost(page, params)}, count ${cost(`SELECT COUNT(*) AS n ${rows}`, params)}`)
console.log(db.prepare(`EXPLAIN QUERY PLAN ${page}`).all(params).map((r) => `  ${r.detail}`).join('\n'))
db.close()
for (const suffix of ['', '-wal', '-shm']) rmSync(copy + suffix, { force: true })
