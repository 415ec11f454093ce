import { createTestDatabase } from '@content/platform/testing'

/**
 * The store a test's system runs on. By default the embedded one (SQLite files under DATA_DIR); with
 * SYSTEM_STORE=postgres (the vitest project `system-postgres`) every service on a PostgreSQL database of
 * its own, made here and dropped once the system stopped — unless the test chose a store itself.
 */
export async function systemStore (env: Record<string, string>): Promise<{ env: Record<string, string>, drop: () => Promise<void> }> {
  if (process.env.SYSTEM_STORE !== 'postgres' || env.STORE !== undefined || env.DATABASE_URL !== undefined) return { env, drop: async () => {} }
  const database = await createTestDatabase('system')
  return { env: { STORE: 'postgres', DATABASE_URL: database.url, ...env }, drop: database.drop }
}
