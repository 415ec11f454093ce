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

  it('when many events were numbered since the outbox was last vacuumed, then a run looks only at the entries of the unnumbered ones', async () => {
    const { url, drop } = await tempSchema()
    const schema = must(schemaOf(url))
    const log = createLogger({ service: 'objects', level: 'silent' })
    // a store's connections in one session; a backend reports its statistics when it ends
    const SESSION = 'objects-tests-walk'
    const session = async (work: (create: (i: number) => Promise<unknown>, postgres: Postgres) => Promise<void>): Promise<void> => {
      const postgres = openPostgres({ settings: testSettings(url, 4), applicationName: SESSION, log })
      const store = await openPostgresStore(postgres, { publicationNickname: 'publication', schema })
      try {
        await work((i) => store.objects.create({
          object_type: 'document', nickname: null, status: 'on', columns: { ...OWN_FIELD_DEFAULTS, file: null, title: `Walked ${i}` },
          read_groups: [], write_groups: [], user_id: 1, extras: {}, links: { parents: [PUBLICATION_ID], relations: [] },
        }, Date.now()), postgres)
      } finally {
        await store.close()
      }
    }
    const observer = openPostgres({ settings: testSettings(url, 1), applicationName: 'objects-tests', log })
    // the scans of the partial index of the unnumbered events, and the entries they read, once the session's
    // backends are gone and what they reported on ending has stayed the same for a while
    const walked = async (): Promise<{ scans: number, read: number }> => {
      let last = { scans: -1, read: -1 }
      let same = 0
      for (let tries = 0; tries < 100 && same < 3; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 150))
        const open = Number(must((await observer.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1', [SESSION])).rows[0]).n)
        const row = must((await observer.query<{ scans: string, read: string }>(
          "SELECT idx_scan AS scans, idx_tup_read AS read FROM pg_stat_user_indexes WHERE schemaname = $1 AND indexrelname = 'changes_unnumbered'", [schema])).rows[0])
        const now = { scans: Number(row.scans), read: Number(row.read) }
        same = open === 0 && now.scans === last.scans && now.read === last.read ? same + 1 : 0
        last = now
      }
      return last
    }
    try {
      await session(async (create, postgres) => {
        // 20,000 events numbered by one run: each leaves its entry in the partial index of the unnumbered
        // ones until a vacuum, and the outbox's statistics (never analyzed) lead the planner to a bitmap scan
        await postgres.query(`INSERT INTO ${schema}.changes (type, object_id, object_type, at, affects)
          SELECT 'object.updated', ${PUBLICATION_ID}, 'publication', 0, '' FROM generate_series(1, 20000)`)
        await create(0)
        await create(1)
      })
      const before = await walked()
      await session(async (create) => { for (let i = 2; i < 12; i++) await create(i) })
      const after = await walked()
      const scans = after.scans - before.scans
      expect(scans).toBeGreaterThanOrEqual(10)
      // a bitmap scan read every numbered event's entry at every run
      expect((after.read - before.read) / scans).toBeLessThan(20)
    } finally {
      await observer.close()
      await drop()
    }
  })
})
