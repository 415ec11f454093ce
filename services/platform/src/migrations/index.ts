export {
  MIGRATE_COMMAND, SchemaVersionError, describeReport,
  type MigrateMode, type Migration, type MigrationReport, type SchemaState,
} from './plan.js'
export { runMigrations, type MigrationSpec, type SchemaBackend } from './runner.js'
export { migrateSqlite, type SqliteDatabase, type SqliteMigration, type SqliteMigrationSpec } from './sqlite.js'
export { migratePostgres, type PostgresMigrationSpec } from './postgres.js'
export { migrateMongo, type MongoMigrationSpec } from './mongo.js'
export { VERSION_FILE, migrateDirectory, type DirectoryMigrationSpec } from './directory.js'
