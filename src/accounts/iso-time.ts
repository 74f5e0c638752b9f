/** Times are stored as ISO-8601 UTC text so that they compare as strings on SQLite and PostgreSQL alike. */
export function isoNow(offsetSeconds = 0): string {
  return new Date(Date.now() + offsetSeconds * 1000).toISOString();
}
