export { openPostgres, type Isolation, type Postgres, type PostgresOptions, type Queryable, type Result, type Row, type TransactionOptions } from './database.js'
export { followAvailability, type Availability, type AvailabilityOptions } from './availability.js'
export { failureError, failureKind, type FailureKind } from './failures.js'
export { isLibpqUrl, postgresEnv, type PostgresSettings } from './settings.js'
