/**
 * @module database
 * The database layer: connections, models, migrations and their errors.
 */
export { DatabaseManager, db, getDatabase, normalizeDriver, setDatabase } from './database-manager.js'
export type { ConnectionConfig, DatabaseDriver, DatabasesConfig } from './database-manager.js'
export { PreparedLookup } from './prepared-lookup.js'
export { Model } from './model.js'
export type { Attributes, ModelClass, ModelSettings, PersistOptions } from './model.js'
export { ModelQuery } from './model-query.js'
export type { WhereOperator } from './model-query.js'
export type { CastType } from './casts.js'
export { Migration } from './migration.js'
export { Migrator } from './migrator.js'
export type { MigrationStatus, MigratorOptions } from './migrator.js'
export { migrationClassName, migrationFileName, newAppMigrations, nextMigrationDate, renderMigrationStub } from './migration-stubs.js'
export type { GeneratedMigration, MigrationStubOptions } from './migration-stubs.js'
export {
  DatabaseUnavailableError,
  MigrationError,
  ModelNotFoundError,
  UniqueConstraintError,
  isUniqueViolation,
  translateDatabaseError,
} from './errors.js'
