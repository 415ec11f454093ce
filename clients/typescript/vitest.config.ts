import { defineProject } from 'vitest/config'

// The client's tests: the SSE subscription against a local server, everything else against a real system.
export default defineProject({
  test: { name: 'client', include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 120_000 },
})
