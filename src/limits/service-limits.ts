import { sql } from '../store/kysely.js';
import type { Service } from '../core/service.js';
import { DetectdError } from '../core/errors.js';
import type { Database } from '../store/database.js';
import { StorageRefusal } from '../store/storage-failure.js';

/** The window of the request-rate limit: `rateLimitPerMinute` calls per 60 s. */
const RATE_WINDOW_MS = 60_000;
/** Slack for the sum of N float emission intervals landing a hair above the window. */
const FLOAT_SLACK_MS = 0.001;

/**
 * Where one of a service's limits stands after a call, as the IETF RateLimit headers
 * (draft-ietf-httpapi-ratelimit-headers) describe a quota policy: `quota` units per `windowSeconds`,
 * `remaining` now, `resetSeconds` until all of them are available again.
 */
export interface LimitStanding {
  readonly policy: 'rate' | 'quota';
  readonly quota: number;
  readonly windowSeconds: number;
  readonly remaining: number;
  readonly resetSeconds: number;
}

/** A call refused by one of its service's limits: 429 `rate_limited` or `quota_exceeded`, with where every limit stands. */
export class LimitExceededError extends DetectdError {
  constructor(
    code: 'rate_limited' | 'quota_exceeded',
    message: string,
    retryAfterSeconds: number,
    readonly standings: readonly LimitStanding[],
  ) {
    super(code, message, retryAfterSeconds);
  }
}

const monthOf = (now: number) => new Date(now).toISOString().slice(0, 7);

function monthBounds(now: number): { start: number; end: number } {
  const date = new Date(now);
  return { start: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1), end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) };
}

/** Calls of a service admitted while the database could not count them, to be written when it is back. */
interface Uncounted {
  readonly serviceId: string;
  readonly month: string;
  calls: number;
  /** The rate limit's TAT as this replica moved it meanwhile; null for a service without a rate limit. */
  tat: number | null;
}

/**
 * Per-service request-rate limits and monthly quotas, enforced in the database so that they hold
 * across replicas. `admit` counts one call: its caller asks once per call, after authentication
 * and before any work.
 *
 * The rate limit is GCRA (the generic cell rate algorithm): the service row keeps a theoretical
 * arrival time (TAT); a call is admitted when max(TAT, now) + T − now ≤ 60 s, where T = 60 s / limit,
 * and moves TAT to max(TAT, now) + T — one conditional UPDATE, atomic on SQLite and PostgreSQL
 * alike. It allows bursts of up to `limit` calls, then one per T. The quota is a per-month row
 * incremented by one upsert that refuses to pass the quota.
 *
 * While the database cannot count (away, or its disk full), calls are counted in memory: the rate
 * limit from this replica's last TAT on, the quota against what this replica last saw remaining;
 * both are written with the first call the database counts again (and at shutdown). A service with
 * a quota that this replica has not counted since it started is refused meanwhile, as its standing
 * is unknown. docs/operations.md, "When things fail", states the overshoot this allows.
 */
export class ServiceLimits {
  /** By service: the TAT and remaining quota (with its month) at its last call the database counted on this replica. */
  readonly #lastSeen = new Map<string, { tat: number | null; remaining: number | null; month: string }>();
  /** By service and month. */
  readonly #uncounted = new Map<string, Uncounted>();
  #writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Admits one call of `service`, or throws LimitExceededError; returns where its limits stand (empty: it has none). */
  async admit(service: Service): Promise<LimitStanding[]> {
    const now = this.clock();
    let standings: LimitStanding[];
    try {
      standings = await this.#admitCounted(service, now);
    } catch (error) {
      if (!(error instanceof StorageRefusal)) throw error;
      return this.#admitUncounted(service, now, error);
    }
    if (this.#uncounted.size > 0) await this.writeUncounted().catch(() => undefined);
    return standings;
  }

  /** Writes the calls counted in memory while the database could not; a failure keeps them for the next try. */
  writeUncounted(): Promise<void> {
    this.#writing = this.#writing.then(async () => {
      for (const [key, uncounted] of this.#uncounted) {
        this.#uncounted.delete(key);
        try {
          await this.#write(uncounted);
        } catch (error) {
          this.#recount(key, uncounted);
          throw error;
        }
      }
    });
    return this.#writing;
  }

  async #admitCounted(service: Service, now: number): Promise<LimitStanding[]> {
    const standings: LimitStanding[] = [];
    if (service.rateLimitPerMinute !== null) standings.push(await this.#takeRate(service, now));
    if (service.monthlyQuota !== null) standings.push(await this.#takeQuota(service, service.monthlyQuota, now, standings));
    else await this.#countMonthlyCall(service, now).executeTakeFirst();
    const rate = standings.find((standing) => standing.policy === 'rate');
    const quota = standings.find((standing) => standing.policy === 'quota');
    this.#lastSeen.set(service.id, { tat: rate ? now + rate.resetSeconds * 1000 : null, remaining: quota ? quota.remaining : null, month: monthOf(now) });
    return standings;
  }

  /** One call admitted (or refused) by this replica alone, counted in memory. */
  #admitUncounted(service: Service, now: number, refusal: StorageRefusal): LimitStanding[] {
    const month = monthOf(now);
    const key = `${service.id} ${month}`;
    const uncounted = this.#uncounted.get(key) ?? { serviceId: service.id, month, calls: 0, tat: null };
    const seen = this.#lastSeen.get(service.id);
    const standings: LimitStanding[] = [];
    let tat = uncounted.tat;
    if (service.rateLimitPerMinute !== null) {
      const limit = service.rateLimitPerMinute;
      const start = Math.max(tat ?? seen?.tat ?? now, now);
      const next = start + RATE_WINDOW_MS / limit;
      if (next - now > RATE_WINDOW_MS + FLOAT_SLACK_MS) {
        const retryAfter = Math.max(1, Math.ceil((next - RATE_WINDOW_MS - now) / 1000));
        throw new LimitExceededError('rate_limited', `service "${service.name}" may make ${limit} requests a minute; retry in ${retryAfter} s`, retryAfter, [rateStanding(limit, start, now)]);
      }
      tat = next;
      standings.push(rateStanding(limit, next, now));
    }
    if (service.monthlyQuota !== null) {
      if (seen === undefined || seen.remaining === null || seen.month !== month) throw refusal;
      const remaining = seen.remaining - uncounted.calls;
      const { start, end } = monthBounds(now);
      const standing = { policy: 'quota' as const, quota: service.monthlyQuota, windowSeconds: Math.round((end - start) / 1000), resetSeconds: Math.max(1, Math.ceil((end - now) / 1000)) };
      if (remaining <= 0) {
        throw new LimitExceededError('quota_exceeded', `service "${service.name}" has used all calls of its quota for ${month}; the quota renews at ${new Date(end).toISOString()}`, standing.resetSeconds, [...standings, { ...standing, remaining: 0 }]);
      }
      standings.push({ ...standing, remaining: remaining - 1 });
    }
    uncounted.calls += 1;
    uncounted.tat = tat;
    this.#uncounted.set(key, uncounted);
    return standings;
  }

  /** Adds calls counted in memory back, after a write of them failed (calls counted meanwhile stay). */
  #recount(key: string, uncounted: Uncounted): void {
    const meanwhile = this.#uncounted.get(key);
    if (!meanwhile) this.#uncounted.set(key, uncounted);
    else {
      meanwhile.calls += uncounted.calls;
      meanwhile.tat = Math.max(meanwhile.tat ?? 0, uncounted.tat ?? 0) || null;
    }
  }

  /** The calls into the month's count (past a quota, if they went past it), and the TAT moved on to where this replica took it. */
  async #write({ serviceId, month, calls, tat }: Uncounted): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('service_monthly_calls')
        .values({ service_id: serviceId, month, calls })
        .onConflict((conflict) => conflict.columns(['service_id', 'month']).doUpdateSet({ calls: sql<number>`service_monthly_calls.calls + ${calls}` }))
        .execute();
      if (tat === null) return;
      const later = sql<number>`case when rate_tat_ms is null or rate_tat_ms < ${tat} then cast(${tat} as double precision) else rate_tat_ms end`;
      await trx.updateTable('services').set({ rate_tat_ms: later }).where('id', '=', serviceId).execute();
    });
  }

  /**
   * Calls admitted this UTC month, with or without a quota: a quota set mid-month counts the calls
   * made before it (docs/console.md "Limits"), so the console's quota line and its usage agree.
   */
  async callsThisMonth(serviceId: string): Promise<number> {
    const row = await this.db.selectFrom('service_monthly_calls').select('calls').where('service_id', '=', serviceId).where('month', '=', monthOf(this.clock())).executeTakeFirst();
    return row?.calls ?? 0;
  }

  async #takeRate(service: Service, now: number): Promise<LimitStanding> {
    const current = sql<number>`cast(${now} as double precision)`;
    const start = sql<number>`case when rate_tat_ms is null or rate_tat_ms < ${current} then ${current} else rate_tat_ms end`;
    const interval = sql<number>`cast(${RATE_WINDOW_MS} as double precision) / rate_limit_per_minute`;
    const admitted = await this.db
      .updateTable('services')
      .set({ rate_tat_ms: sql<number>`${start} + ${interval}` })
      .where('id', '=', service.id)
      .where('rate_limit_per_minute', 'is not', null)
      .where(sql<boolean>`${start} + ${interval} - ${current} <= ${RATE_WINDOW_MS + FLOAT_SLACK_MS}`)
      .returning(['rate_tat_ms', 'rate_limit_per_minute'])
      .executeTakeFirst();
    if (admitted) return rateStanding(admitted.rate_limit_per_minute!, admitted.rate_tat_ms!, now);
    // Refused (or the limit was just removed): read where it stands, to say when to come back.
    const row = await this.db.selectFrom('services').select(['rate_tat_ms', 'rate_limit_per_minute']).where('id', '=', service.id).executeTakeFirst();
    if (!row || row.rate_limit_per_minute === null || row.rate_tat_ms === null) return rateStanding(service.rateLimitPerMinute!, now, now);
    const limit = row.rate_limit_per_minute;
    const retryAfterMs = row.rate_tat_ms + RATE_WINDOW_MS / limit - RATE_WINDOW_MS - now;
    throw new LimitExceededError(
      'rate_limited',
      `service "${service.name}" may make ${limit} requests a minute; retry in ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s`,
      Math.max(1, Math.ceil(retryAfterMs / 1000)),
      [rateStanding(limit, row.rate_tat_ms, now)],
    );
  }

  /** One more call this month; with `quota`, only while fewer than `quota` were counted (no row back when refused). */
  #countMonthlyCall(service: Service, now: number, quota?: number) {
    return this.db
      .insertInto('service_monthly_calls')
      .values({ service_id: service.id, month: monthOf(now), calls: 1 })
      .onConflict((conflict) => {
        const counting = conflict.columns(['service_id', 'month']).doUpdateSet({ calls: sql<number>`service_monthly_calls.calls + 1` });
        return quota === undefined ? counting : counting.where('service_monthly_calls.calls', '<', quota);
      })
      .returning('calls');
  }

  async #takeQuota(service: Service, quota: number, now: number, earlier: readonly LimitStanding[]): Promise<LimitStanding> {
    const counted = await this.#countMonthlyCall(service, now, quota).executeTakeFirst();
    const { start, end } = monthBounds(now);
    const standing = (calls: number): LimitStanding => ({
      policy: 'quota',
      quota,
      windowSeconds: Math.round((end - start) / 1000),
      remaining: Math.max(0, quota - calls),
      resetSeconds: Math.max(1, Math.ceil((end - now) / 1000)),
    });
    if (counted) return standing(counted.calls);
    const refused = standing(quota);
    throw new LimitExceededError(
      'quota_exceeded',
      `service "${service.name}" has used all ${quota === 1 ? '1 call' : `${quota} calls`} of its quota for ${monthOf(now)}; the quota renews at ${new Date(end).toISOString()}`,
      refused.resetSeconds,
      [...earlier, refused],
    );
  }
}

/** The rate limit's standing for TAT `tat`: calls that would be admitted now, and when the window is whole again. */
function rateStanding(limit: number, tat: number, now: number): LimitStanding {
  const interval = RATE_WINDOW_MS / limit;
  const backlog = Math.max(0, tat - now);
  return {
    policy: 'rate',
    quota: limit,
    windowSeconds: RATE_WINDOW_MS / 1000,
    remaining: Math.max(0, Math.floor((RATE_WINDOW_MS + FLOAT_SLACK_MS - backlog) / interval)),
    resetSeconds: Math.ceil(backlog / 1000),
  };
}
