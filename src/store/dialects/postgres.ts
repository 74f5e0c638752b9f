import type { Dialect } from 'kysely';
import { PostgresDialect } from '../kysely.js';
import pg from 'pg';

/** How long opening a connection may take before the query fails (storage_unavailable) instead of waiting on a host that does not answer. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * A shared PostgreSQL database: every replica pointed at the same URL sees the same accounts,
 * services, keys and usage. The pool is small because requests hold a connection only briefly.
 */
export function postgresDialect(databaseUrl: string): Dialect {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A connection the server ends (a restart, a failover, an administrator) emits 'error': unhandled,
  // that event ends the process. The pool handles it for idle connections and drops them; a
  // connection in use by a query needs a listener of its own (the query itself fails, and the pool
  // drops the connection when it comes back unusable). The next query opens a new connection.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return new PostgresDialect({ pool });
}
