// One process of the replica tests: opens the PostgreSQL objects store at argv[2], in the schema argv[5] (its
// built code, as a replica runs it) and creates argv[3] documents under object 1, argv[4] at a time; prints their ids as JSON.
import { OWN_FIELD_DEFAULTS } from '@content/api-schema'
import { createLogger } from '@content/platform'
import { openPostgres } from '@content/platform/postgres'
import { openPostgresStore } from '../../dist/store/postgres/postgres.store.js'

const [url, count, concurrency, schema] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), process.argv[5]]
const settings = { DATABASE_URL: url, PG_POOL_SIZE: concurrency, PG_STATEMENT_TIMEOUT_MS: 30_000, PG_ACQUIRE_TIMEOUT_MS: 10_000 }
const log = createLogger({ service: 'objects', level: 'silent' })
const store = await openPostgresStore(openPostgres({ settings, applicationName: 'replica-test', log }), { publicationNickname: 'publication', schema })
const columns = { ...OWN_FIELD_DEFAULTS, file: null }
const ids = []
let next = 0
async function worker () {
  while (next < count) {
    const i = next++
    ids.push(await store.objects.create({
      object_type: 'document', nickname: null, status: 'on', columns: { ...columns, title: `Doc ${process.pid} ${i}` },
      read_groups: [], write_groups: [], user_id: 1, extras: { tags: ['replica'] }, links: { parents: [1], relations: [] },
    }, Date.now()))
  }
}
await Promise.all(Array.from({ length: concurrency }, worker))
await store.close()
process.stdout.write(JSON.stringify(ids))
