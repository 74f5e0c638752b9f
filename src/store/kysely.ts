import { createRequire } from 'node:module';
import type * as KyselyModule from 'kysely';

/**
 * Kysely's values, from its CommonJS build. Its ES module build is 262 files, which Node 20 loads
 * at a far higher cost than the CommonJS one, and every server start and every `detectd` command
 * loads it (docs/development.md, "What makes the suite slow"). Every module takes Kysely's values
 * from here, never from 'kysely', so one copy is loaded and its classes are one (erase-deleted.ts
 * tells SQLite by its adapter's class); types come from 'kysely' itself.
 */
const kysely = createRequire(import.meta.url)('kysely') as typeof KyselyModule;

export const { DEFAULT_MIGRATION_TABLE, Kysely, Migrator, PostgresDialect, SqliteAdapter, SqliteDialect, sql } = kysely;
export type Kysely<DB> = KyselyModule.Kysely<DB>;
