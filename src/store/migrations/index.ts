import type { Migration, MigrationProvider } from 'kysely';
import { accountsServicesKeys } from './0001-accounts-services-keys.js';

/** All migrations, keyed so that they sort in the order they must run. */
const MIGRATIONS: Record<string, Migration> = {
  '0001-accounts-services-keys': accountsServicesKeys,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
