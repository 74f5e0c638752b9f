import type { Migration, MigrationProvider } from 'kysely';
import { STORE_MIGRATIONS } from './migrations/index.js';
import type { Tables } from './tables.js';

/** What a feature adds to the database (Feature.migrations, Feature.tables). */
export interface OwnedSchema {
  /** Its migrations, each under its frozen name in the one global order (`0015-known-plates`). */
  readonly migrations?: Readonly<Record<string, Migration>>;
  /** Its tables, in the order their rows can be inserted into an empty database (after the store's, which they may reference). */
  readonly tables?: readonly string[];
}

/**
 * The store's own tables, each after the tables its foreign keys point at: the order in which rows
 * can be inserted into an empty database. A feature's tables come after them (Schema.tables; test/migrate-to-postgres.test.ts checks
 * that the schema names every table the migrations make).
 */
const STORE_TABLES_IN_COPY_ORDER = [
  'accounts',
  'invitations',
  'services',
  'api_keys',
  'console_sessions',
  'sign_in_failures',
  'stream_tokens',
  'usage_counters',
  'service_monthly_calls',
  'memory_versions',
] as const satisfies readonly (keyof Tables)[];

/** A migration's name: its number in the one global order, then what it does (`0015-known-plates`). */
const MIGRATION_NAME = /^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * The database of a build: the store's own migrations and tables and those of the features
 * (OwnedSchema). The migrations run in one order, by name, as Kysely's Migrator sorts them; the
 * names are the rows of its `kysely_migration` table, so a shipped one never changes, wherever its
 * file lives, and each number is taken once, whoever owns it.
 */
export class Schema {
  readonly migrations: Readonly<Record<string, Migration>>;
  /** The migrations' names, in the order they run: a database with another one applied comes from a newer detectd. */
  readonly migrationNames: readonly string[];
  readonly provider: MigrationProvider;
  /** Every table, each after the tables its foreign keys point at: the order in which rows can be inserted into an empty database. */
  readonly tables: readonly string[];

  constructor(owned: readonly OwnedSchema[]) {
    const numbers = new Map<string, string>();
    const sets = [STORE_MIGRATIONS, ...owned.map((schema) => schema.migrations ?? {})];
    for (const name of sets.flatMap((migrations) => Object.keys(migrations))) {
      const number = MIGRATION_NAME.exec(name)?.[1];
      if (number === undefined) throw new Error(`migration ${name}: its name must be a number of 4 digits, "-", then words in lowercase letters and digits joined by "-"`);
      const taken = numbers.get(number);
      if (taken !== undefined) throw new Error(`migrations ${taken} and ${name} have the same number: give the newer one the next free number`);
      numbers.set(number, name);
    }
    this.migrationNames = [...numbers.values()].sort();
    const all = Object.assign({}, ...sets) as Record<string, Migration>;
    this.migrations = Object.fromEntries(this.migrationNames.map((name) => [name, all[name]]));
    this.provider = { getMigrations: async () => this.migrations };
    this.tables = [...STORE_TABLES_IN_COPY_ORDER, ...owned.flatMap((schema) => schema.tables ?? [])];
  }
}
