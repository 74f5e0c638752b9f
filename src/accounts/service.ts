import type { Tables } from '../store/tables.js';

/** A service: what an API key belongs to, owned by one account. */
export interface Service {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  /** A task's type (tasks/index.ts), e.g. object-detection. */
  readonly type: string;
  /** Detector name, or null for the server default. */
  readonly model: string | null;
  readonly createdAt: string;
  readonly disabled: boolean;
  /** Address ranges (canonical CIDR) from which DeepStack-style calls without a key act as this service; null: off, a key is always needed. */
  readonly keylessAddressRanges: readonly string[] | null;
  /** Requests a minute its keys may make (README "Limits"); null: no rate limit. */
  readonly rateLimitPerMinute: number | null;
  /** Calls a UTC calendar month; null: no quota. */
  readonly monthlyQuota: number | null;
}

/** The `services` columns a Service is read from. */
export const SERVICE_COLUMNS = ['id', 'account_id', 'name', 'type', 'model', 'created_at', 'disabled_at', 'keyless_address_ranges', 'rate_limit_per_minute', 'monthly_quota'] as const;

/** The row shape of `services` as read from the store. */
export function toService(row: Pick<Tables['services'], (typeof SERVICE_COLUMNS)[number]>): Service {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    type: row.type,
    model: row.model,
    createdAt: row.created_at,
    disabled: row.disabled_at !== null,
    keylessAddressRanges: row.keyless_address_ranges === null ? null : row.keyless_address_ranges.split(' '),
    rateLimitPerMinute: row.rate_limit_per_minute,
    monthlyQuota: row.monthly_quota,
  };
}
