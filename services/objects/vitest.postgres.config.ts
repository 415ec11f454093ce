import { defineProject } from 'vitest/config'

// The objects service's RPC tests again, on PostgreSQL (test/integration/harness.ts reads OBJECTS_TEST_STORE).
export default defineProject({
  test: {
    name: 'objects-postgres',
    include: ['test/integration/*.rpc.test.ts'],
    env: { OBJECTS_TEST_STORE: 'postgres' },
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
})
