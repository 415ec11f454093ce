import pg from 'pg'
import { FOLD_COUNTS } from '../../src/store/postgres/kept-counts.postgres.js'
import { openTestStore, tempSchema } from '../support/temp-postgres.js'
import { NOW, describeKeptTreeContract, type EdgeRow, type TreeRows } from './kept-tree.contract.js'

let reads = 0

/** The rows; every other time the counts' deltas are folded first, so both the rows and the deltas are what reads sum. */
async function rowsOf (url: string): Promise<TreeRows> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    if (reads++ % 2 === 0) for (const sql of FOLD_COUNTS) await client.query(sql)
    const number = (v: unknown) => Number(v)
    const edges = (await client.query(`SELECT t.parent_id, t.object_id, t.priority, o.object_type, o.status, o.start_date, o.end_date, o.read_groups
      FROM tree t JOIN objects o ON o.id = t.object_id`)).rows.map((r): EdgeRow => ({
      parent_id: number(r.parent_id), object_id: number(r.object_id), priority: number(r.priority), object_type: r.object_type, status: r.status,
      start_date: r.start_date === null ? null : number(r.start_date), end_date: r.end_date === null ? null : number(r.end_date), read_groups: r.read_groups,
    }))
    const tagged = (await client.query('SELECT ot.object_id, t.name FROM object_tags ot JOIN tags t ON t.id = ot.tag_id')).rows
      .map((r) => ({ object_id: number(r.object_id), name: r.name as string }))
    return { edges, tagged }
  } finally {
    await client.end()
  }
}

// each run opens a store in a schema of its own: fewer runs than SQLite's, whose stores are files
describeKeptTreeContract('postgres', async () => {
  const { url, drop } = await tempSchema()
  const store = await openTestStore(url, { publicationNickname: 'pub', now: () => NOW })
  return { store, rows: () => rowsOf(url), cleanup: async () => { await store.close(); await drop() } }
}, 25)
