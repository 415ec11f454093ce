import { OWN_FIELD_DEFAULTS } from '@content/api-schema'
import { createLogger } from '@content/platform'
import { openPostgres } from '@content/platform/postgres'
import { describe, expect, it } from 'vitest'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import { openPostgresStore } from '../../src/store/postgres/postgres.store.js'
import { must } from '../support/must.js'
import { schemaOf, tempSchema, testSettings } from '../support/temp-postgres.js'

describe('postgres store: lists planned for their values', () => {
  it('when a list has run many times, then it is still not a prepared statement (no generic plan), while a read by id is, and one of a single id, the kept tally of a page and its index walk plan generically', async () => {
    const { url, drop } = await tempSchema()
    // one connection: the prepared statements it holds are the store's
    const postgres = openPostgres({ settings: testSettings(url, 1), applicationName: 'objects-tests', log: createLogger({ service: 'objects', level: 'silent' }) })
    const store = await openPostgresStore(postgres, { publicationNickname: 'publication', schema: must(schemaOf(url)) })
    try {
      const selection = {
        visibility: { statuses: ['on' as const], at: Date.now(), groups: [] }, filter: { object_types: [], query: '' },
        clauses: [], sort: [], after: null, offset: 0, limit: 20, count: true,
      }
      // past the five runs after which a prepared statement may be planned generically
      for (let i = 0; i < 8; i++) {
        await store.lists.select({ kind: 'descendants', node: PUBLICATION_ID, order: 'id' }, selection)
        await store.tree.children(PUBLICATION_ID, 'all', { offset: 0, limit: 20, visibility: selection.visibility, filter: selection.filter })
        await store.tree.descendants(PUBLICATION_ID, 'tree', { offset: 0, limit: 20, visibility: selection.visibility, filter: selection.filter })
        await store.objects.listByIds([PUBLICATION_ID])
        await store.objects.listByIds([PUBLICATION_ID, PUBLICATION_ID + 1])
      }
      const prepared = (await postgres.query<{ statement: string, generic_plans: string }>('SELECT statement, generic_plans FROM pg_prepared_statements')).rows
      expect(prepared.some((s) => s.statement.includes('FROM objects o WHERE o.id = ANY'))).toBe(true)
      // one id is compared at once, so that after the first five runs its plan is made once and reused
      const one = prepared.find((s) => s.statement.endsWith('FROM objects o WHERE o.id = $1'))
      expect(Number(must(one).generic_plans)).toBeGreaterThanOrEqual(3)
      // a list's rows joined to their objects are planned for each run
      const pages = prepared.filter((s) => /LIMIT \$\d+ OFFSET \$\d+/.test(s.statement))
      expect(pages.filter((s) => s.statement.includes('objects'))).toEqual([])
      // a page's kept tally (count rows by node) and its index walk (when every row shows) are one plan for every node
      for (const kind of ['child', 'descendant']) {
        const tally = prepared.find((s) => s.statement.includes(`FROM ${kind}_counts WHERE node_id`))
        expect(Number(must(tally).generic_plans)).toBeGreaterThanOrEqual(3)
      }
      for (const walk of ['FROM tree WHERE parent_id = $1 ORDER BY', 'FROM closure WHERE ancestor_id = $1 AND descendant_id <> $1 ORDER BY']) {
        expect(Number(must(pages.find((s) => s.statement.includes(walk))).generic_plans)).toBeGreaterThanOrEqual(3)
      }
    } finally {
      await store.close()
      await drop()
    }
  })
})

describe('postgres store: a write\'s statements planned once', () => {
  it('when creates run one after another on one connection, then no statement of theirs is planned for its values again', async () => {
    const { url, drop } = await tempSchema()
    const postgres = openPostgres({ settings: testSettings(url, 1), applicationName: 'objects-tests', log: createLogger({ service: 'objects', level: 'silent' }) })
    const store = await openPostgresStore(postgres, { publicationNickname: 'publication', schema: must(schemaOf(url)) })
    const plans = async () => new Map((await postgres.query<{ statement: string, generic_plans: string, custom_plans: string }>(
      'SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements')).rows.map((r) => [r.statement, { generic: Number(r.generic_plans), custom: Number(r.custom_plans) }]))
    try {
      const create = (i: number) => store.objects.create({
        object_type: 'document', nickname: null, status: 'on', columns: { ...OWN_FIELD_DEFAULTS, file: null, title: `Doc ${i}` },
        read_groups: [], write_groups: [], user_id: 1, extras: { tags: ['planned'] }, links: { parents: [PUBLICATION_ID], relations: [] },
      }, Date.now())
      await create(0)
      const before = await plans()
      for (let i = 1; i <= 8; i++) await create(i)
      const after = await plans()
      const ran = [...after].map(([statement, n]) => ({ statement, generic: n.generic - (before.get(statement)?.generic ?? 0), custom: n.custom - (before.get(statement)?.custom ?? 0) }))
        .filter((d) => d.generic + d.custom > 0)
      // every statement of the creates' transactions (not the numbering's, after each commit, in a
      // transaction of the sequencer's): a generic plan reused, never a plan made for the run
      const inWrites = ran.filter((d) => !/WITH unnumbered AS|FROM changes WHERE id = ANY/.test(d.statement))
      expect(inWrites.length).toBeGreaterThan(3)
      expect(inWrites.filter((d) => d.custom > 0).map((d) => d.statement.slice(0, 60))).toEqual([])
      expect(inWrites.every((d) => d.generic >= 8)).toBe(true)
    } finally {
      await store.close()
      await drop()
    }
  })
})
