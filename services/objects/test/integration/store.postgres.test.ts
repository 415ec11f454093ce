import { describeDraftsContract } from './drafts.contract.js'
import { describeIncludesContract } from './includes.contract.js'
import { describeOutboxContract } from './outbox.contract.js'
import { describeSelectContract } from './select.contract.js'
import { describeObjectsStoreContract } from './store.contract.js'
import { describeRevisionsContract } from './revisions.contract.js'
import { describeScheduleContract } from './schedule.contract.js'
import { describeTrashContract } from './trash.contract.js'
import { tempPostgresStore } from '../support/temp-postgres.js'

// PostgreSQL runs on every build machine and in CI: these are never skipped (an unreachable server fails them).
describeObjectsStoreContract('postgres', () => tempPostgresStore())
describeSelectContract('postgres', () => tempPostgresStore())
describeOutboxContract('postgres', () => tempPostgresStore())
describeTrashContract('postgres', () => tempPostgresStore())
describeScheduleContract('postgres', () => tempPostgresStore())
describeDraftsContract('postgres', () => tempPostgresStore())
describeRevisionsContract('postgres', (keep) => tempPostgresStore({ revisionsKeep: keep }))
describeIncludesContract('postgres', () => tempPostgresStore())
