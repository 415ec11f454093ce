import pg from 'pg'
import { openTestStore, tempSchema } from '../support/temp-postgres.js'
import { NOW, TABLES, describeFixturesContract } from './fixtures.contract.js'

/** Every table's rows as JSON, sorted. */
export async function dumpTables (url: string, tables: readonly string[] = TABLES): Promise<Record<string, string[]>> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const out: Record<string, string[]> = {}
    for (const t of tables) out[t] = (await client.query(`SELECT to_jsonb(t)::text AS row FROM ${t} t`)).rows.map((r) => r.row as string).sort()
    return out
  } finally {
    await client.end()
  }
}

describeFixturesContract('postgres', async () => {
  const { url, drop } = await tempSchema()
  const store = await openTestStore(url, { now: () => NOW })
  return { store, dump: () => dumpTables(url), cleanup: async () => { await store.close(); await drop() } }
})
