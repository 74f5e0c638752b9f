import { sql } from '../store/kysely.js';
import type { Database } from '../store/database.js';
import { quantileMs } from './latency-histogram.js';

export interface UsageCount {
  readonly serviceId: string;
  /** UTC minute, `YYYY-MM-DDTHH:MM`. */
  readonly minute: string;
  readonly counter: string;
  readonly value: number;
}

/** A period the console reports on, and the width of one chart bar as a prefix length of the minute key. */
export const USAGE_WINDOWS = {
  hour: { label: 'Last hour', minutes: 60, binPrefix: 16, binMinutes: 1 },
  day: { label: 'Last 24 hours', minutes: 24 * 60, binPrefix: 13, binMinutes: 60 },
  month: { label: 'Last 30 days', minutes: 30 * 24 * 60, binPrefix: 10, binMinutes: 24 * 60 },
} as const;
export type UsageWindow = keyof typeof USAGE_WINDOWS;

export function isUsageWindow(value: unknown): value is UsageWindow {
  return typeof value === 'string' && Object.hasOwn(USAGE_WINDOWS, value);
}

export interface UsageSummary {
  readonly requests: number;
  readonly images: number;
  readonly detections: number;
  readonly errors: number;
  readonly errorsByCode: Readonly<Record<string, number>>;
  readonly p50Ms: number | null;
  readonly p95Ms: number | null;
  /** One bar per bin, oldest first, empty bins included. */
  readonly series: readonly { readonly bin: string; readonly requests: number; readonly errors: number }[];
}

/** Rows per statement: well below SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 500;

/** Per-minute usage counters in the database (table `usage_counters`). */
export class UsageStore {
  constructor(private readonly db: Database) {}

  /** Adds the counts to what is stored (upsert), so replicas and flushes add up. */
  async add(counts: readonly UsageCount[]): Promise<void> {
    for (let start = 0; start < counts.length; start += CHUNK) {
      const rows = counts.slice(start, start + CHUNK).map((count) => ({ service_id: count.serviceId, minute: count.minute, counter: count.counter, value: count.value }));
      await this.db
        .insertInto('usage_counters')
        .values(rows)
        .onConflict((conflict) =>
          conflict.columns(['service_id', 'minute', 'counter']).doUpdateSet((eb) => ({ value: eb('usage_counters.value', '+', eb.ref('excluded.value')) })),
        )
        .execute();
    }
  }

  async summary(serviceId: string, window: UsageWindow, now = new Date()): Promise<UsageSummary> {
    const { minutes, binPrefix, binMinutes } = USAGE_WINDOWS[window];
    const since = minuteKey(new Date(now.getTime() - (minutes - 1) * 60_000));
    const inWindow = this.db.selectFrom('usage_counters').where('service_id', '=', serviceId).where('minute', '>=', since);
    const totals = await inWindow.select(['counter', (eb) => eb.fn.sum<string | number>('value').as('total')]).groupBy('counter').execute();
    const bin = sql<string>`substr(minute, 1, ${sql.lit(binPrefix)})`;
    const bars = await inWindow
      .select([bin.as('bin'), 'counter', (eb) => eb.fn.sum<string | number>('value').as('total')])
      .where((eb) => eb.or([eb('counter', '=', 'requests'), eb('counter', 'like', 'error:%')]))
      .groupBy([bin, 'counter'])
      .execute();

    const total = (counter: string) => Number(totals.find((row) => row.counter === counter)?.total ?? 0);
    const errorsByCode: Record<string, number> = {};
    const latency = new Map<number, number>();
    for (const row of totals) {
      if (row.counter.startsWith('error:')) errorsByCode[row.counter.slice('error:'.length)] = Number(row.total);
      if (row.counter.startsWith('latency:')) latency.set(Number(row.counter.slice('latency:'.length)), Number(row.total));
    }
    const series = binsSince(now, minutes, binMinutes, binPrefix).map((key) => {
      const inBin = bars.filter((row) => row.bin === key);
      return {
        bin: key,
        requests: Number(inBin.find((row) => row.counter === 'requests')?.total ?? 0),
        errors: inBin.filter((row) => row.counter !== 'requests').reduce((sum, row) => sum + Number(row.total), 0),
      };
    });
    return {
      requests: total('requests'),
      images: total('images'),
      detections: total('detections'),
      errors: Object.values(errorsByCode).reduce((sum, count) => sum + count, 0),
      errorsByCode,
      p50Ms: quantileMs(latency, 0.5),
      p95Ms: quantileMs(latency, 0.95),
      series,
    };
  }
}

function minuteKey(date: Date): string {
  return date.toISOString().slice(0, 16);
}

/** Keys of every bin that the window touches, oldest first (the first and last may be partial). */
function binsSince(now: Date, minutes: number, binMinutes: number, binPrefix: number): string[] {
  const keys: string[] = [];
  const push = (offset: number) => {
    const key = minuteKey(new Date(now.getTime() - offset * 60_000)).slice(0, binPrefix);
    if (keys[keys.length - 1] !== key) keys.push(key);
  };
  for (let offset = minutes - 1; offset > 0; offset -= binMinutes) push(offset);
  push(0);
  return keys;
}
