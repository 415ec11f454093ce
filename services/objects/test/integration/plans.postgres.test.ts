import { createLogger } from '@content/platform'
import { openPostgres } from '@content/platform/postgres'
import { describe, expect, it } from 'vitest'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import { openPostgresStore } from '../../src/store/postgres/postgres.store.js'
import { must } from '../support/must.js'
import { schemaOf, tempSchema, testSettings } from '../support/temp-postgres.js'

describe('postgres store: lists planned for their values', () => {
  it('when a list has run many times, then it is still not a prepared statement (no generic plan), while a read by id is', async () => {
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
        await store.objects.listByIds([PUBLICATION_ID])
      }
      const prepared = (await postgres.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements')).rows.map((r) => r.statement)
      expect(prepared.some((s) => s.includes('FROM objects o WHERE o.id = ANY'))).toBe(true)
      expect(prepared.filter((s) => /LIMIT \$\d+ OFFSET \$\d+/.test(s))).toEqual([])
    } finally {
      await store.close()
      await drop()
    }
  })
})
