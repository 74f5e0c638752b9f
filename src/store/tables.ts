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
