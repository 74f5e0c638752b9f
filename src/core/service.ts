/**
 * A service: what an API key belongs to, owned by one account. Stored and changed by accounts/;
 * read by core/, limits/ and every front door, so it lives here, below them all.
 */
export interface Service {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  /** A task's type (a feature's task), e.g. object-detection. */
  readonly type: string;
  /** The name of the model that answers it, or null for the default model of its task's kind. */
  readonly model: string | null;
  readonly createdAt: string;
  readonly disabled: boolean;
  /** Address ranges (canonical CIDR) from which DeepStack-style calls without a key act as this service; null: off, a key is always needed. */
  readonly keylessAddressRanges: readonly string[] | null;
  /** Requests a minute its keys may make (docs/console.md "Limits"); null: no rate limit. */
  readonly rateLimitPerMinute: number | null;
  /** Calls a UTC calendar month; null: no quota. */
  readonly monthlyQuota: number | null;
  /** At most this many predictions, the most confident, in a DeepStack / CodeProject.AI answer (e.g. 20 for Frigate); null: no cap. */
  readonly deepStackMaxPredictions: number | null;
}
