import type { Generated } from 'kysely';

export type AccountRole = 'admin' | 'member';

/**
 * The database's tables as Kysely sees them. Ids are UUID text and times ISO-8601 UTC text, so
 * the same queries run unchanged on SQLite and PostgreSQL.
 */
export interface Tables {
  accounts: {
    id: string;
    email: string;
    password_hash: string;
    created_at: string;
    /** Set while an operator has disabled the account: its keys and console sign-in are refused. */
    disabled_at: string | null;
    /** `admin` (the first account: may invite) or `member`. */
    role: Generated<AccountRole>;
  };
  invitations: {
    id: string;
    /** SHA-256 of the invitation link's token. */
    token_hash: string;
    created_by: string;
    created_at: string;
    expires_at: string;
    used_at: string | null;
  };
  services: {
    id: string;
    account_id: string;
    name: string;
    type: string;
    /** Detector name; null means the server's default model. */
    model: string | null;
    created_at: string;
    disabled_at: string | null;
    /** Space-separated CIDR ranges whose DeepStack-style calls need no key; null: keyless calls are off (the default). */
    keyless_address_ranges: string | null;
    /** Requests a minute the service may make; null: no rate limit. */
    rate_limit_per_minute: number | null;
    /** Calls a UTC calendar month the service may make; null: no quota. */
    monthly_quota: number | null;
    /** At most this many predictions in a DeepStack / CodeProject.AI answer; null: no cap. */
    deepstack_max_predictions: number | null;
    /** The rate limiter's theoretical arrival time (GCRA), epoch ms; null until the first limited call. */
    rate_tat_ms: number | null;
  };
  /** The version of what a service remembers (store/memory-versions.ts), raised by every write to it. */
  memory_versions: {
    service_id: string;
    /** Which memory: MemoryName. */
    memory: string;
    version: number;
  };
  service_monthly_calls: {
    service_id: string;
    /** UTC month, `YYYY-MM`. */
    month: string;
    calls: number;
  };
  api_keys: {
    id: string;
    service_id: string;
    /** HMAC-SHA256 of the key under the server secret; the key itself is never stored in plain text. */
    key_hash: string;
    created_at: string;
    /** When a rotated-out key stops working; null while current. */
    expires_at: string | null;
    revoked_at: string | null;
    /** AES-256-GCM ciphertext of the key (see accounts/key-cipher.ts), so its owner can read it again; null for keys issued before it existed. */
    key_ciphertext: string | null;
  };
  console_sessions: {
    /** SHA-256 of the session cookie's token: a leaked table does not hand out sessions. */
    token_hash: string;
    account_id: string;
    created_at: string;
    expires_at: string;
  };
  sign_in_failures: {
    id: string;
    /** Hash of the email and client address the failure counts against. */
    subject: string;
    /** Hash of the email alone: an operator's unlock forgets its failures from every address. */
    email_hash: string;
    failed_at: string;
  };
  usage_counters: {
    service_id: string;
    /** UTC minute, `YYYY-MM-DDTHH:MM`. */
    minute: string;
    /** `requests`, `images`, `detections`, `error:<code>` or `latency:<bucket>` (see usage/latency-histogram.ts). */
    counter: string;
    value: number;
  };
  stream_tokens: {
    /** SHA-256 of the token: a leaked table opens no stream. */
    token_hash: string;
    service_id: string;
    expires_at: string;
  };
}
