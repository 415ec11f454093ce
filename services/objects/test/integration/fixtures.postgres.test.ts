import { createLogger } from '@content/platform'
import { openPostgres } from '@content/platform/postgres'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { planFixtures } from '../../src/core/fixtures.plan.js'
import { DEFAULT_COLUMNS } from '../../src/core/object-input.js'
import type { StoreAdapter } from '../../src/core/ports.js'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import { applyFixtures } from '../../src/core/writes/fixtures.writes.js'
import { RowByRowImport } from '../../src/core/writes/fixtures.rows.js'
import { openPostgresAdapter, openPostgresStore } from '../../src/store/postgres/postgres.store.js'
import { must } from '../support/must.js'
import { openTestStore, schemaOf, tempPostgresStore, tempSchema, testSettings } from '../support/temp-postgres.js'
import { NOW, TABLES, describeFixturesContract, existing, trickyFile } from './fixtures.contract.js'

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

/** The tables as rows to compare: the kept counts as their sums (rows and deltas), events (with the access they record) without their transaction. */
async function comparable (url: string): Promise<Record<string, string[]>> {
  const plain = TABLES.filter((t) => !t.endsWith('_counts') && t !== 'changes')
  const out = await dumpTables(url, plain)
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const rows = async (sql: string) => (await client.query(sql)).rows.map((r) => JSON.stringify(r)).sort()
    for (const kind of ['child', 'descendant']) {
      out[`${kind}_counts`] = await rows(`SELECT node_id, status, section, SUM(n) AS n FROM (SELECT node_id, status, section, n FROM ${kind}_counts
        UNION ALL SELECT node_id, status, section, n FROM ${kind}_count_deltas) k GROUP BY 1, 2, 3 HAVING SUM(n) <> 0`)
    }
    out.changes = await rows('SELECT seq, type, object_id, object_type, related_id, related_type, relation, parent_id, parent_type, at, affects, access FROM changes')
    return out
  } finally {
    await client.end()
  }
}

describe('postgres fixtures plan, in bulk', () => {
  it('when a plan is written with COPY, then every row and change event equals writing it one row at a time', async () => {
    const made = await Promise.all([tempSchema(), tempSchema()])
    const [bulk, rows] = await Promise.all(made.map(({ url }) => openTestStore(url, { now: () => NOW })))
    try {
      const byRow = must(rows)
      // the reference: the same import, its steps taken from the write steps (core's RowByRowImport)
      const adapter = await openPostgresAdapter(openPostgres({ settings: testSettings(must(made[1]).url), applicationName: 'objects-tests', log: createLogger({ service: 'objects', level: 'silent' }) }),
        { publicationNickname: 'publication', now: () => NOW, schema: must(schemaOf(must(made[1]).url)) })
      try {
        const rowByRow: StoreAdapter = { ...adapter, importInBulk: (work) => adapter.write((steps) => work(new RowByRowImport(steps))) }
        for (const store of [must(bulk), byRow]) {
          const old = await existing(store)
          const outcome = planFixtures(JSON.stringify(trickyFile(old)), [], PUBLICATION_ID)
          if (!outcome.ok) throw new Error(outcome.errors.join('\n'))
          const refs = store === byRow ? await applyFixtures(rowByRow, { revisionsKeep: null }, outcome.plan, NOW) : await store.applyFixtures(outcome.plan, NOW)
          expect(Object.keys(refs).length).toBeGreaterThan(5)
        }
      } finally {
        await adapter.close()
      }
      const [a, b] = await Promise.all(made.map(({ url }) => comparable(url)))
      expect(a).toEqual(b)
      expect(must(a).changes?.length).toBeGreaterThan(20)
      // every event of the import records who may read its object (decisions §17)
      expect(must(a).changes?.filter((row) => (JSON.parse(row) as { access: string | null }).access === null)).toEqual([])
    } finally {
      for (const store of [bulk, rows]) await store?.close()
      for (const { drop } of made) await drop()
    }
  })
})

describe('postgres fixtures import, its statements past the statement timeout', () => {
  it('when a file takes longer to copy and number than a request statement may run, then it is imported whole, its events numbered and its tables analyzed', async () => {
    const { url, drop } = await tempSchema()
    const schema = must(schemaOf(url))
    // a request's statements are cancelled at 100 ms (the least PG_STATEMENT_TIMEOUT_MS takes); this file's
    // COPY of its objects and the numbering of its events each take several times that on this machine
    const postgres = openPostgres({ settings: { ...testSettings(url), PG_STATEMENT_TIMEOUT_MS: 100 }, applicationName: 'objects-tests', log: createLogger({ service: 'objects', level: 'silent' }) })
    const store = await openPostgresStore(postgres, { publicationNickname: 'publication', now: () => NOW, schema })
    try {
      const objects = [
        { ref: 'home', object_type: 'section', title: 'Home', parents: ['@publication'] },
        ...Array.from({ length: 8_000 }, (_, i) => ({
          ref: `d${i}`, object_type: 'document', title: `Document ${i}`, description: `Description of document ${i}`,
          body: `<p>Body of document ${i}. ${'Lorem ipsum dolor sit amet. '.repeat(8)}</p>`, parents: ['home'],
        })),
      ]
      const outcome = planFixtures(JSON.stringify({ objects }), [], PUBLICATION_ID)
      if (!outcome.ok) throw new Error(outcome.errors.join('\n'))
      const refs = await store.applyFixtures(outcome.plan, NOW)
      expect(Object.keys(refs)).toHaveLength(objects.length)
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        const { rows } = await client.query('SELECT COUNT(*)::int AS n, COUNT(seq)::int AS numbered, MIN(seq)::int AS first, MAX(seq)::int AS last FROM changes')
        const counts = must(rows[0]) as { n: number, numbered: number, first: number, last: number }
        // every event numbered, without gaps: the numbering run that took them all was not cancelled
        expect(counts.n).toBeGreaterThan(objects.length)
        expect(counts).toEqual({ n: counts.n, numbered: counts.n, first: counts.last - counts.n + 1, last: counts.last })
        // vacuumed and analyzed once it committed: the planner knows the tables' sizes, whatever autovacuum did yet
        const tidied = await client.query(`SELECT relname FROM pg_stat_user_tables WHERE schemaname = $1 AND last_vacuum IS NOT NULL AND last_analyze IS NOT NULL
          AND relname = ANY($2::text[]) ORDER BY relname`, [schema, ['changes', 'closure', 'nicknames', 'objects', 'tree']])
        expect(tidied.rows.map((r) => r.relname as string)).toEqual(['changes', 'closure', 'nicknames', 'objects', 'tree'])
      } finally {
        await client.end()
      }
      // a request's read still runs under the request's bound
      expect((await store.objects.listByIds([must(refs.d7999)]))[0]?.title).toBe('Document 7999')
    } finally {
      await store.close()
      await drop()
    }
  }, 120_000)
})

describe('postgres fixtures import, generated nicknames', () => {
  it('when the roots and many of their candidates are taken, then each object gets the first free one, as one at a time would', async () => {
    const { store, cleanup } = await tempPostgresStore({ now: () => NOW })
    try {
      // same, same-1 … same-19 in the store: past the first round's candidates of the root
      for (let i = 0; i < 20; i++) {
        await store.objects.create({
          object_type: 'document', nickname: null, status: 'on', columns: { ...DEFAULT_COLUMNS, title: 'Same' }, read_groups: [], write_groups: [], user_id: 1,
          extras: {}, links: { parents: [PUBLICATION_ID], relations: [] },
        }, NOW)
      }
      const objects = [
        { ref: 'a', object_type: 'document', title: 'Same', parents: ['@publication'] },
        { ref: 'b', object_type: 'document', title: 'Same 1', parents: ['@publication'] },
        { ref: 'c', object_type: 'document', title: 'Same', parents: ['@publication'] },
        { ref: 'd', object_type: 'document', title: 'Same', nickname: 'same-22', parents: ['@publication'] },
        { ref: 'e', object_type: 'document', title: 'Same', parents: ['@publication'] },
      ]
      const outcome = planFixtures(JSON.stringify({ objects }), [], PUBLICATION_ID)
      if (!outcome.ok) throw new Error(outcome.errors.join('\n'))
      const refs = await store.applyFixtures(outcome.plan, NOW)
      const records = await store.objects.listByIds(['a', 'b', 'c', 'd', 'e'].map((r) => must(refs[r])))
      const byId = new Map(records.map((r) => [r.id, r.nickname]))
      expect(['a', 'b', 'c', 'd', 'e'].map((r) => byId.get(must(refs[r])))).toEqual(['same-20', 'same-1-1', 'same-21', 'same-22', 'same-23'])
    } finally {
      await cleanup()
    }
  })
})

describe('postgres fixtures import, its events numbered as it writes them', () => {
  it('when creates commit while a file is imported, then every event is numbered once, without gaps, the import\'s together and as it wrote them', async () => {
    const { store, url, cleanup } = await tempPostgresStore({ now: () => NOW })
    const create = (title: string) => store.objects.create({
      object_type: 'document', nickname: null, status: 'on', columns: { ...DEFAULT_COLUMNS, title }, read_groups: [], write_groups: [], user_id: 1,
      extras: {}, links: { parents: [PUBLICATION_ID], relations: [] },
    }, NOW)
    try {
      await create('before')
      const objects = [
        { ref: 'home', object_type: 'section', title: 'Home', parents: ['@publication'] },
        ...Array.from({ length: 2_000 }, (_, i) => ({ ref: `d${i}`, object_type: 'document', title: `Document ${i}`, parents: ['home'], relations: i > 0 ? { seealso: [{ related: `d${i - 1}` }] } : {} })),
      ]
      const outcome = planFixtures(JSON.stringify({ objects }), [], PUBLICATION_ID)
      if (!outcome.ok) throw new Error(outcome.errors.join('\n'))
      // creates committing before, during and after the import's own numbering
      const [refs] = await Promise.all([store.applyFixtures(outcome.plan, NOW), ...Array.from({ length: 20 }, (_, i) => create(`beside ${i}`))])
      expect(Object.keys(refs)).toHaveLength(objects.length)
      await create('after')
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        const all = (await client.query('SELECT COUNT(*)::int AS n, COUNT(seq)::int AS numbered, MIN(seq)::int AS first, MAX(seq)::int AS last FROM changes')).rows[0] as { n: number, numbered: number, first: number, last: number }
        expect(all).toEqual({ n: all.n, numbered: all.n, first: 1, last: all.n })
        expect(store.committedSeq()).toBe(all.last)
        // the import's events: one block of numbers in the order it recorded them, each row the version it
        // wrote (a numbering run after its commit would have rewritten every row, a new version each)
        const mine = (await client.query(`SELECT COUNT(*)::int AS n, MIN(seq)::int AS first, MAX(seq)::int AS last,
            COUNT(*) FILTER (WHERE xmin::text::numeric <> xact::text::numeric % 4294967296)::int AS rewritten,
            bool_and(seq - m = rank - 1) AS in_order
          FROM (SELECT seq, xmin, xact, MIN(seq) OVER () AS m, rank() OVER (ORDER BY id) AS rank FROM changes
            WHERE xact = (SELECT xact FROM changes GROUP BY xact ORDER BY COUNT(*) DESC LIMIT 1)) t`)).rows[0]
        expect(mine).toMatchObject({ rewritten: 0, in_order: true })
        expect(mine.n).toBe(3 * 2_000 + 1) // each object created and placed, each seealso pair related
        expect(mine.last - mine.first + 1).toBe(mine.n)
      } finally {
        await client.end()
      }
    } finally {
      await cleanup()
    }
  }, 60_000)
})
