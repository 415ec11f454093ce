import { defineProject } from 'vitest/config'

// System tests: the whole system started the way the README says, driven over HTTP.
export default defineProject({
  test: { name: 'system', include: ['**/*.test.ts'], testTimeout: 60_000, hookTimeout: 120_000 },
})
