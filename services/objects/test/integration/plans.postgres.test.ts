import { createLogger } from '@content/platform'
import { openPostgres } from '@content/platform/postgres'
import { describe, expect, it } from 'vitest'
import { openPostgresStore } from '../../src/store/postgres/postgres.store.js'
import { must } from '../support/must.js'
import { schemaOf, tempSchema, testSettings } from '../support/temp-postgres.js'

describe('postgres store: statements planned for their values', () => {
  it('when the store opens on its URL, then every connection of its pool plans each run of a statement for its values (no generic plans)', async () => {
    const { url, drop } = await tempSchema()
    const postgres = openPostgres({ settings: testSettings(url, 4), applicationName: 'objects-tests', log: createLogger({ service: 'objects', level: 'silent' }) })
    const store = await openPostgresStore(postgres, { publicationNickname: 'publication', schema: must(schemaOf(url)) })
    try {
      // four at once: each holds a connection of its own, the ones the store opened and new ones alike
      const modes = await Promise.all(Array.from({ length: 4 }, () => postgres.withClient(async (client) => {
        const mode = (await client.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows[0]?.plan_cache_mode
        await new Promise((resolve) => setTimeout(resolve, 50))
        return mode
      })))
      expect(modes).toEqual(['force_custom_plan', 'force_custom_plan', 'force_custom_plan', 'force_custom_plan'])
    } finally {
      await store.close()
      await drop()
    }
  })
})
