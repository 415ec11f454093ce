import { z } from 'zod'

const int = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback)

/** Whether `text` is a libpq connection URL (`postgres://` or `postgresql://`), as node-postgres and psql read it. */
export function isLibpqUrl (text: string): boolean {
  if (!URL.canParse(text)) return false
  const { protocol } = new URL(text)
  return protocol === 'postgres:' || protocol === 'postgresql:'
}

/**
 * The PostgreSQL settings every service that may use it reads. The URL's text is never echoed in an error:
 * it may hold a password.
 */
export const postgresEnv = {
  /** libpq URL: postgres://user:password@host:5432/database?sslmode=require */
  DATABASE_URL: z.string().refine(isLibpqUrl, 'must be a libpq URL: postgres://user:password@host:5432/database').optional(),
  /** connections this process holds at most */
  PG_POOL_SIZE: int(1, 1_000, 10),
  /** the server cancels a statement running longer (answered as a timeout) */
  PG_STATEMENT_TIMEOUT_MS: int(100, 3_600_000, 5_000),
  /** how long a call waits for a free connection (or for a new one to open) before it is answered 503 */
  PG_ACQUIRE_TIMEOUT_MS: int(10, 600_000, 2_000),
}

export interface PostgresSettings {
  DATABASE_URL?: string | undefined
  PG_POOL_SIZE: number
  PG_STATEMENT_TIMEOUT_MS: number
  PG_ACQUIRE_TIMEOUT_MS: number
}
