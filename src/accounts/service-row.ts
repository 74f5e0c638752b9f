import type { Service } from '../core/service.js';
import type { Tables } from '../store/tables.js';

/** The `services` columns a Service is read from. */
export const SERVICE_COLUMNS = ['id', 'account_id', 'name', 'type', 'model', 'created_at', 'disabled_at', 'keyless_address_ranges', 'rate_limit_per_minute', 'monthly_quota', 'deepstack_max_predictions'] as const;

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
    deepStackMaxPredictions: row.deepstack_max_predictions,
  };
}
