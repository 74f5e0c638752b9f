import type { Dialect } from 'kysely';
import { DEFAULT_MIGRATION_TABLE as MIGRATION_TABLE, Kysely, Migrator, sql } from './kysely.js';
import fs from 'node:fs';
import { sqliteDialect, sqliteFile } from './dialects/sqlite.js';
import type { Schema } from './schema.js';
import { StorageRefusal } from './storage-failure.js';
import { StorageHealth } from './storage-health.js';
import { watchStorage } from './storage-watch.js';
import type { Tables } from './tables.js';

export type Database = Kysely<Tables>;

export interface DatabaseSettings {
  /** Folder of the embedded SQLite file, used when no `databaseUrl` is given. */
  readonly dataDir: string;
  /** `postgres://…` to use PostgreSQL instead of the embedded SQLite file. */
  readonly databaseUrl?: string;
}

/** PostgreSQL when a URL is given, else the embedded SQLite file. pg is imported only then: most servers and commands never need it. */
export async function dialectFor(settings: DatabaseSettings): Promise<Dialect> {
  if (!settings.databaseUrl) return sqliteDialect(settings.dataDir);
  const { postgresDialect } = await import('./dialects/postgres.js');
  return postgresDialect(settings.databaseUrl);
}

/** Which database the settings name, for a person: the SQLite file, or the PostgreSQL URL without its password. */
export function databaseLocation(settings: DatabaseSettings): string {
  if (!settings.databaseUrl) return `SQLite ${sqliteFile(settings.dataDir)}`;
  const url = new URL(settings.databaseUrl);
  url.password = '';
  url.search = ''; // options, maybe a password among them
  return `PostgreSQL ${url.href}`;
}

/** False when the settings name an embedded SQLite file that is not there yet (opening would create it); a PostgreSQL database is made by its administrator, never by detectd. */
export function databaseExists(settings: DatabaseSettings): boolean {
  return Boolean(settings.databaseUrl) || fs.existsSync(sqliteFile(settings.dataDir));
}

export interface OpenOptions {
  /** Told the migrations it ran, for the start-up log. */
  readonly applied?: (migrations: readonly string[]) => void;
  /** Told every storage failure and recovery (the server's, which logs them and shows them on /readyz); a command's own otherwise. */
  readonly health?: StorageHealth;
}

/** Where the settings' database writes, for StorageHealth: the SQLite file's folder, or none of ours for PostgreSQL. */
export function storageLocation(settings: DatabaseSettings): { database: string; dataDir?: string } {
  return { database: databaseLocation(settings), dataDir: settings.databaseUrl ? undefined : settings.dataDir };
}

/**
 * Opens the configured database and brings its schema up to date (`schema`: the store's and the
 * features', as the composition root gathers them); a failure says which database
 * and why, in one sentence. Every storage failure of a query on it is a StorageRefusal (503
 * `storage_unavailable`, 507 `storage_full`).
 */
export async function openDatabase(settings: DatabaseSettings, schema: Schema, { applied = () => undefined, health = new StorageHealth(storageLocation(settings)) }: OpenOptions = {}): Promise<Database> {
  let db: Database;
  try {
    db = new Kysely<Tables>({ dialect: watchStorage(await dialectFor(settings), health) });
  } catch (error) {
    throw new Error(`cannot open ${databaseLocation(settings)}: ${(error as Error).message}`, { cause: error });
  }
  try {
    applied(await migrate(db, schema));
  } catch (error) {
    await db.destroy();
    // At start-up the operator is told what the database said (ECONNREFUSED, a password refused), not a caller's refusal.
    const reason = error instanceof StorageRefusal ? error.cause : error;
    throw new Error(`cannot open ${databaseLocation(settings)}: ${(reason as Error).message}`, { cause: error });
  }
  return db;
}

/**
 * Brings the schema up to date. Replicas starting at once on one PostgreSQL database are safe:
 * Kysely's Migrator runs the pending migrations under a PostgreSQL advisory lock
 * (pg_advisory_lock), so one replica migrates and the others then find nothing to do, and it
 * tolerates the race of creating its own bookkeeping tables. test/replicas.test.ts proves it
 * (without that lock, concurrent runs fail on duplicate tables).
 */
export async function migrate(db: Database, schema: Schema): Promise<readonly string[]> {
  const unknown = (await appliedMigrations(db)).filter((name) => !schema.migrationNames.includes(name));
  if (unknown.length > 0) {
    throw new Error(
      `its schema was brought up to date by a newer detectd (${unknown.join(', ')}), which this version cannot run on: ` +
        'run that version or a later one, or restore a backup taken before the upgrade (docs/operations.md, "Upgrading")',
    );
  }
  const { error, results } = await new Migrator({ db, provider: schema.provider }).migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  const reason = error instanceof Error ? error.message : String(error);
  if (failed) throw new Error(`its schema migration ${failed.migrationName} failed: ${reason}`);
  if (error) throw new Error(reason);
  return (results ?? []).map((result) => result.migrationName);
}

/** The migrations applied to the database (none on a new one). */
async function appliedMigrations(db: Database): Promise<string[]> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((table) => table.name === MIGRATION_TABLE)) return [];
  const { rows } = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`.execute(db);
  return rows.map((row) => row.name);
}

/** True when the database answers a trivial query. */
export async function databaseReachable(db: Database): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
