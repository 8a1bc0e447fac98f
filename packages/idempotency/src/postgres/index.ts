export { POSTGRES_STORE_DEFAULTS, POSTGRES_STORE_LIMITS } from './defaults.js';
export { PostgresIdempotencyStore, type PostgresIdempotencyStoreOptions } from './postgres-store.js';
export { PG_RECORD_FORMAT_VERSION } from './schema.js';
export {
  POSTGRES_SCHEMA_VERSION,
  schemaSql,
  type SchemaSqlOptions,
  type SchemaStatement,
} from './schema-versions.js';
export { MIGRATE_DEFAULTS, type MigrateOptions } from './migration.js';
export { kyselyTransaction, type KyselyExecutor } from './kysely.js';
