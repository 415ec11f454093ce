import { defineConfig } from 'vitest/config'

// One vitest run covers every package: unit and integration tests of each service,
// the system tests in test/, the chart tests in deploy/ and the load-test helpers.
export default defineConfig({
  test: {
    projects: ['schema', 'services/*', 'clients/*', 'services/objects/vitest.postgres.config.ts', 'deploy', 'loadtest', 'test', 'test/vitest.postgres.config.ts'],
  },
})
