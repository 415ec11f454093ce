import { defineProject } from 'vitest/config'

// The system suites that speak only HTTP, again with every service on PostgreSQL (STORE=postgres, a database
// of each system's own: support/system-store.ts), as the production path runs. The suites that open the
// store's files themselves (media on disk, SQLite) stay on the `system` project alone.
export default defineProject({
  test: {
    name: 'system-postgres',
    include: [
      'auth.test.ts', 'bola.test.ts', 'conformance-audit.test.ts', 'drafts-preview.test.ts', 'durability.test.ts', 'foundation.test.ts',
      'fuzz.test.ts', 'idempotency.test.ts', 'include-amplification.test.ts', 'live-changes.test.ts', 'media-poster.test.ts',
      'openapi.test.ts', 'query-power.test.ts', 'reads-lists.test.ts', 'reads-objects.test.ts', 'reads-protocol.test.ts',
      'translations.test.ts', 'writes-invalid.test.ts', 'writes.test.ts', 'zero-trust.test.ts',
    ],
    env: { SYSTEM_STORE: 'postgres', FUZZ_RUNS: process.env.FUZZ_RUNS ?? '4000' },
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
})
