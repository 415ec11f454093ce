import { fileURLToPath } from 'node:url'
import { defineProject } from 'vitest/config'

const shim = (file: string) => fileURLToPath(new URL(`./test/support/k6-shim/${file}`, import.meta.url))

export default defineProject({
  // `k6` and `k6/http` exist only inside the k6 binary; the wiring smoke tests load the scripts
  // against small stand-ins instead (exact-match patterns, so nothing else is redirected).
  resolve: {
    alias: [
      { find: /^k6\/http$/, replacement: shim('http.ts') },
      { find: /^k6$/, replacement: shim('k6.ts') },
    ],
  },
  test: { name: 'loadtest', include: ['test/**/*.test.ts'], testTimeout: 60_000 },
})
