/** What time it is. Injected where expiry is decided, so that tests move time instead of waiting for it. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/**
 * The clock's time plus `offsetSeconds`, as ISO-8601 UTC text: times are stored as such so that
 * they compare as strings on SQLite and PostgreSQL alike.
 */
export function isoAt(clock: Clock, offsetSeconds = 0): string {
  return new Date(clock().getTime() + offsetSeconds * 1000).toISOString();
}

/** `isoAt` on the system clock. */
export function isoNow(offsetSeconds = 0): string {
  return isoAt(systemClock, offsetSeconds);
}
