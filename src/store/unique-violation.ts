/**
 * True when `error` is the database refusing a row because `table`'s unique constraint on exactly
 * `columns` already holds its values: the race a check-then-insert loses when two calls make the
 * same name at once. SQLite (better-sqlite3) names the columns in its message; PostgreSQL (pg)
 * gives SQLSTATE 23505, the table, and the key in `detail`.
 */
export function isUniqueViolation(error: unknown, table: string, columns: readonly string[]): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message, table: violatedTable, detail } = error as { code?: unknown; message?: unknown; table?: unknown; detail?: unknown };
  if (code === 'SQLITE_CONSTRAINT_UNIQUE') return message === `UNIQUE constraint failed: ${columns.map((column) => `${table}.${column}`).join(', ')}`;
  return code === '23505' && violatedTable === table && typeof detail === 'string' && detail.startsWith(`Key (${columns.join(', ')})=`);
}
