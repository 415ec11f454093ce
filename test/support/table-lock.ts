import { onServer } from '@content/platform/testing'

/**
 * Holds `table` locked (ACCESS EXCLUSIVE) on the database at `url` for `ms`, then rolls back: every
 * statement touching it waits meanwhile, so a service's connections stay busy. Resolves once the lock is
 * held; `released` resolves once it is let go.
 */
export async function holdTableLock (url: string, table: string, ms: number): Promise<{ released: Promise<void> }> {
  let held!: () => void
  const holding = new Promise<void>((resolve) => { held = resolve })
  const released = onServer(async (client) => {
    await client.query('BEGIN')
    await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`)
    held()
    await new Promise((r) => setTimeout(r, ms))
    await client.query('ROLLBACK')
  }, url)
  await Promise.race([holding, released])
  return { released }
}
