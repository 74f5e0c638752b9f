import type { Dialect } from 'kysely';
import { PostgresDialect } from '../kysely.js';
import pg from 'pg';

/**
 * A shared PostgreSQL database: every replica pointed at the same URL sees the same accounts,
 * services, keys and usage. The pool is small because requests hold a connection only briefly.
 */
export function postgresDialect(databaseUrl: string): Dialect {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  // An idle connection the server ends (a restart, a failover, an administrator) is dropped from the
  // pool and the next query opens a new one; unhandled, pg's 'error' event would end the process.
  pool.on('error', () => undefined);
  return new PostgresDialect({ pool });
}
