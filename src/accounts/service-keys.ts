import crypto from 'node:crypto';
import type { Database } from '../store/database.js';
import { generateApiKey, hashApiKey, looksLikeApiKey, sameDigest } from './api-keys.js';
import { type Clock, isoAt } from './iso-time.js';
import { KeyCipher } from './key-cipher.js';
import type { Service } from '../core/service.js';
import { SERVICE_COLUMNS, toService } from './service-row.js';
import { type RecentlyVerified, recalledWhenUnavailable, type VerifiedService } from './recently-verified.js';

/** A key that still opens its service: the current one, or an older one inside its grace period. */
export interface ActiveKey {
  readonly id: string;
  readonly createdAt: string;
  /** Null for the current key; when set, the key is rotated out and stops working then. */
  readonly expiresAt: string | null;
  /** Shown as `dtd_…XXXX` in lists; the plaintext only ever leaves through `reveal`. */
  readonly hint: string | null;
}

type Writer = Pick<Database, 'insertInto'>;

/**
 * API keys of services: issued, looked up on every API call, shown to their owner, rotated and
 * revoked. Every lookup reads the database, so a revocation or an expired grace period takes
 * effect on every replica at once; only while the database cannot be reached does a key verified
 * in the last minute open its service from memory (recently-verified.ts).
 */
export class ServiceKeys {
  readonly #cipher: KeyCipher;

  constructor(
    private readonly db: Database,
    private readonly secret: string,
    /** Decides when a rotated-out key's grace period is over. */
    private readonly clock: Clock,
    /** This replica's memory of what the database verified, shared with Services (keyless calls) and Accounts. */
    private readonly verified: RecentlyVerified,
  ) {
    this.#cipher = new KeyCipher(secret);
  }

  /** Stores a new key for the service (hash for lookup, ciphertext for its owner) and returns it. */
  async issue(writer: Writer, serviceId: string): Promise<string> {
    const apiKey = generateApiKey();
    const id = crypto.randomUUID();
    await writer
      .insertInto('api_keys')
      .values({
        id,
        service_id: serviceId,
        key_hash: hashApiKey(this.secret, apiKey),
        key_ciphertext: this.#cipher.encrypt(apiKey, id),
        created_at: isoAt(this.clock),
        expires_at: null,
        revoked_at: null,
      })
      .execute();
    return apiKey;
  }

  /**
   * The service an API key belongs to, if the key is current (not revoked, not past its grace
   * period), and whether an operator has disabled the account that owns it.
   */
  async authenticate(apiKey: string): Promise<VerifiedService | undefined> {
    if (!looksLikeApiKey(apiKey)) return undefined;
    const keyHash = hashApiKey(this.secret, apiKey);
    const row = await this.db
      .selectFrom('api_keys')
      .innerJoin('services', 'services.id', 'api_keys.service_id')
      .innerJoin('accounts', 'accounts.id', 'services.account_id')
      .select(['api_keys.key_hash', 'api_keys.expires_at', 'api_keys.revoked_at', ...SERVICE_COLUMNS.map((column) => `services.${column}` as const)])
      .select('accounts.disabled_at as account_disabled_at')
      .where('api_keys.key_hash', '=', keyHash)
      .executeTakeFirst()
      .catch((error: unknown) => recalledWhenUnavailable(error, () => this.verified.recallKey(keyHash)));
    if (row && 'accountDisabled' in row) return row;
    if (!row || !sameDigest(row.key_hash, keyHash) || row.revoked_at !== null || (row.expires_at !== null && row.expires_at <= isoAt(this.clock))) {
      this.verified.forgetKey(keyHash);
      return undefined;
    }
    const service = { ...toService(row), accountDisabled: row.account_disabled_at !== null };
    this.verified.rememberKey(keyHash, service, row.expires_at);
    return service;
  }

  /** Keys that still work, current first, then rotated-out ones by expiry. */
  async active(service: Service): Promise<ActiveKey[]> {
    const rows = await this.#activeRows(service.id);
    return rows.map((row) => ({ id: row.id, createdAt: row.created_at, expiresAt: row.expires_at, hint: this.#hint(row.id, row.key_ciphertext) }));
  }

  /** The plaintext of the service's current key; undefined when it has none or it predates encryption at rest. */
  async reveal(service: Service): Promise<string | undefined> {
    const current = (await this.#activeRows(service.id)).find((row) => row.expires_at === null);
    return current?.key_ciphertext ? this.#cipher.decrypt(current.key_ciphertext, current.id) : undefined;
  }

  /**
   * Issues a new current key. The old current key keeps working for `graceSeconds` (0: revoked at
   * once); keys already in a grace period keep theirs.
   */
  async rotate(service: Service, graceSeconds: number): Promise<string> {
    const apiKey = await this.db.transaction().execute(async (trx) => {
      const retire = trx.updateTable('api_keys').where('service_id', '=', service.id).where('revoked_at', 'is', null).where('expires_at', 'is', null);
      await (graceSeconds > 0 ? retire.set({ expires_at: isoAt(this.clock, graceSeconds) }) : retire.set({ revoked_at: isoAt(this.clock) })).execute();
      return this.issue(trx, service.id);
    });
    this.verified.forgetService(service.id);
    return apiKey;
  }

  /** Revokes one of the service's keys at once; false when it has no such working key. */
  async revoke(service: Service, keyId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: isoAt(this.clock) })
      .where('id', '=', keyId)
      .where('service_id', '=', service.id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    this.verified.forgetService(service.id);
    return result.numUpdatedRows > 0n;
  }

  async #activeRows(serviceId: string) {
    const rows = await this.db
      .selectFrom('api_keys')
      .select(['id', 'created_at', 'expires_at', 'key_ciphertext'])
      .where('service_id', '=', serviceId)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', isoAt(this.clock))]))
      .orderBy('created_at', 'desc')
      .execute();
    // Current (no expiry) first, then rotated-out keys, latest expiry first.
    return rows.sort((a, b) => (a.expires_at === null ? -1 : b.expires_at === null ? 1 : b.expires_at.localeCompare(a.expires_at)));
  }

  #hint(rowId: string, ciphertext: string | null): string | null {
    return ciphertext ? `dtd_…${this.#cipher.decrypt(ciphertext, rowId).slice(-4)}` : null;
  }
}
