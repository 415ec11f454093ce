import { defineProject } from 'vitest/config'

export default defineProject({
  test: {
    name: 'deploy',
    include: ['test/**/*.test.ts'],
    testTimeout: 120000,
    // Unpacks helm into .bin/helm once per run (or names why it cannot) before any test file loads.
    globalSetup: ['test/support/global-setup.ts'],
  },
})
