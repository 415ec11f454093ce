export { openPostgres, readTimeoutFor, type Isolation, type Postgres, type PostgresOptions, type Queryable, type Result, type Row, type TransactionOptions } from './database.js'
export { followAvailability, type Availability, type AvailabilityOptions } from './availability.js'
export { postgresEnv, type PostgresSettings } from './settings.js'
