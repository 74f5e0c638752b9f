import type { Service } from '../core/service.js';

/**
 * How long a key the database verified may still open its service from memory while the database
 * cannot be reached: the bound on how long a revocation made on another replica (or a disabling,
 * or a rotated key's grace running out) can go unseen. docs/operations.md, "When things fail".
 */
export const VERIFIED_KEY_TRUST_MS = 60_000;

export type VerifiedService = Service & { readonly accountDisabled: boolean };

interface Verification {
  readonly service: VerifiedService;
  /** The key's own expiry (a rotated-out key's grace), ISO time; null for a current key. */
  readonly expiresAt: string | null;
  /** Epoch ms of the verification. */
  readonly at: number;
}

/**
 * The last verification of each key used in the last minute, by key hash (never the key): what
 * lets an analysis by a known key go on while the database restarts. Only ever consulted when the
 * database cannot answer; a change to a key, service or account on this replica forgets it at once.
 */
export class VerifiedKeys {
  #byHash = new Map<string, Verification>();

  remember(keyHash: string, service: VerifiedService, expiresAt: string | null, now: number): void {
    this.#byHash.set(keyHash, { service, expiresAt, at: now });
    // The map holds the keys of one minute: older ones go as new ones come.
    if (this.#byHash.size % 256 === 0) for (const [hash, { at }] of this.#byHash) if (now - at > VERIFIED_KEY_TRUST_MS) this.#byHash.delete(hash);
  }

  /** The service the key opened at its verification, if that was within the trust period and the key has not expired since. */
  recall(keyHash: string, now: number): VerifiedService | undefined {
    const verification = this.#byHash.get(keyHash);
    if (!verification || now - verification.at > VERIFIED_KEY_TRUST_MS) return undefined;
    if (verification.expiresAt !== null && Date.parse(verification.expiresAt) <= now) return undefined;
    return verification.service;
  }

  forget(keyHash: string): void {
    this.#byHash.delete(keyHash);
  }

  /** Forgets the verifications of one service's keys, or of every key (a change to an account). */
  forgetService(serviceId?: string): void {
    for (const [hash, { service }] of this.#byHash) if (serviceId === undefined || service.id === serviceId) this.#byHash.delete(hash);
  }
}
