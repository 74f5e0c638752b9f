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
}

/** The row shape of `services` as read from the store. */
export function toService(row: {
  id: string;
  account_id: string;
  name: string;
  type: string;
  model: string | null;
  created_at: string;
  disabled_at: string | null;
  keyless_address_ranges: string | null;
}): Service {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    type: row.type,
    model: row.model,
    createdAt: row.created_at,
    disabled: row.disabled_at !== null,
    keylessAddressRanges: row.keyless_address_ranges === null ? null : row.keyless_address_ranges.split(' '),
  };
}
