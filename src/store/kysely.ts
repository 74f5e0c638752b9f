import { createRequire } from 'node:module';
import path from 'node:path';
import type * as KyselyModule from 'kysely';
import { packageRoot } from '../package-root.js';

/**
 * Kysely's values, from its CommonJS build bundled into one file by `npm run build` (esbuild:
 * dist/vendor/kysely.cjs). Each of Kysely's own builds is 262 files, and finding and reading them
 * cost every server start and every `detectd` command a tenth of a CPU second, four times what the
 * one file costs (docs/development.md, "What makes the suite slow"). Every module takes Kysely's
 * values from here, never from 'kysely', so one copy is loaded and its classes are one
 * (erase-deleted.ts tells SQLite by its adapter's class); types come from 'kysely' itself.
 */
const kysely = createRequire(import.meta.url)(path.join(packageRoot(), 'dist', 'vendor', 'kysely.cjs')) as typeof KyselyModule;

export const { DEFAULT_MIGRATION_TABLE, Kysely, Migrator, PostgresDialect, SqliteAdapter, SqliteDialect, sql } = kysely;
export type Kysely<DB> = KyselyModule.Kysely<DB>;
