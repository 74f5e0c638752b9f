import { type Dialect, PostgresDialect } from 'kysely';
import pg from 'pg';

/**
 * A shared PostgreSQL database: every replica pointed at the same URL sees the same accounts,
 * services, keys and usage. The pool is small because requests hold a connection only briefly.
 */
export function postgresDialect(databaseUrl: string): Dialect {
  return new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl, max: 10 }) });
}
