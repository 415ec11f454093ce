import { OWN_FIELD_DEFAULTS } from '@content/api-schema'
import { createLogger } from '@content/platform'
import { openPostgres, type Postgres } from '@content/platform/postgres'
import type pg from 'pg'
import { describe, expect, it } from 'vitest'
import { PUBLICATION_ID } from '../../src/core/publication.js'
import { openPostgresStore } from '../../src/store/postgres/postgres.store.js'
import { must } from '../support/must.js'
import { schemaOf, tempSchema, testSettings } from '../support/temp-postgres.js'

/** `postgres` with the texts each connection lent by withClient was sent, a list per lending. */
function recording (postgres: Postgres): { postgres: Postgres, lendings: string[][] } {
  const lendings: string[][] = []
  const withClient: Postgres['withClient'] = (work) => postgres.withClient((client) => {
    const sent: string[] = []
    lendings.push(sent)
    const query = client.query.bind(client) as (config: unknown) => Promise<unknown>
    const counted = new Proxy(client, {
      get: (target, key, receiver) => key === 'query'
        ? (config: string | pg.QueryConfig) => { sent.push(typeof config === 'string' ? config : config.text); return query(config) }
        : Reflect.get(target, key, receiver),
    })
    return work(counted)
  })
  return { postgres: { ...postgres, withClient }, lendings }
}

describe('postgres store: a numbering run in one round trip', () => {
  it('when creates commit, then each numbering run is one message to the server that also reads the waiting writes\' numbers, and every create is answered with its events numbered', async () => {
    const { url, drop } = await tempSchema()
    const real = openPostgres({ settings: testSettings(url, 4), applicationName: 'objects-tests', log: createLogger({ service: 'objects', level: 'silent' }) })
    const { postgres, lendings } = recording(real)
    const store = await openPostgresStore(postgres, { publicationNickname: 'publication', schema: must(schemaOf(url)) })
    try {
      const create = (i: number) => store.objects.create({
        object_type: 'document', nickname: null, status: 'on', columns: { ...OWN_FIELD_DEFAULTS, file: null, title: `Numbered ${i}` },
        read_groups: [], write_groups: [], user_id: 1, extras: {}, links: { parents: [PUBLICATION_ID], relations: [] },
      }, Date.now())
      const before = (await store.changes.bounds()).last
      lendings.length = 0
      await Promise.all(Array.from({ length: 6 }, (_, i) => create(i)))
      for (let i = 6; i < 9; i++) await create(i)
      const runs = lendings.filter((sent) => sent.some((text) => text.includes('pg_advisory_xact_lock(4801003)')))
      expect(runs.length).toBeGreaterThan(0)
      // BEGIN, the lock, the numbering, COMMIT and the look-up of the writes' numbers: one message
      for (const sent of runs) expect(sent).toHaveLength(1)
      expect(runs.some(([text]) => /COMMIT; SELECT id, seq FROM changes WHERE id = ANY/.test(must(text)))).toBe(true)
      // each create's two events (created, and its placing under the publication) numbered without gaps
      const events = await store.changes.after(before, 100)
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 18 }, (_, i) => before + i + 1))
    } finally {
      await store.close()
      await drop()
    }
  })
})
