import type { Service } from '../core/service.js';
import { type Clock, systemClock } from './iso-time.js';
import { StorageRefusal } from '../store/storage-failure.js';

/**
 * How long what the database verified — a key, or the service a call without a key from an address
 * acts as — may still be trusted from memory while the database cannot be reached: the bound on how
 * long a change made on another replica (a revocation, a disabling, a rotated key's grace running
 * out, keyless ranges changed) can go unseen. docs/operations.md, "When things fail".
 */
export const VERIFIED_TRUST_MS = 60_000;

export type VerifiedService = Service & { readonly accountDisabled: boolean };

interface Verification<S extends Service> {
  readonly service: S;
  /** The key's own expiry (a rotated-out key's grace), ISO time; null for a current key and a keyless call. */
  readonly expiresAt: string | null;
  /** Epoch ms of the verification. */
  readonly at: number;
}

type Verifications<S extends Service> = Map<string, Verification<S>>;

/**
 * What the database verified in the last minute, for the calls that need it: each key used, by its
 * hash (never the key), and each keyless call's address and service type. It lets an analysis go on
 * while the database restarts, and is only ever consulted when the database cannot answer. A change
 * to a key, service or account on this replica forgets what it could have changed at once.
 */
export class RecentlyVerified {
  readonly #keys: Verifications<VerifiedService> = new Map();
  readonly #keyless: Verifications<Service> = new Map();

  constructor(private readonly clock: Clock = systemClock) {}

  rememberKey(keyHash: string, service: VerifiedService, expiresAt: string | null): void {
    this.#remember(this.#keys, keyHash, { service, expiresAt, at: this.#now() });
  }

  /** The service the key opened at its verification, if that was within the trust period and the key has not expired since. */
  recallKey(keyHash: string): VerifiedService | undefined {
    return this.#recall(this.#keys, keyHash);
  }

  forgetKey(keyHash: string): void {
    this.#keys.delete(keyHash);
  }

  /** The service a call of `serviceType` without a key from `address` acted as; undefined (none) forgets it. */
  rememberKeyless(address: string, serviceType: string, service: Service | undefined): void {
    const what = `${serviceType} ${address}`;
    if (service) this.#remember(this.#keyless, what, { service, expiresAt: null, at: this.#now() });
    else this.#keyless.delete(what);
  }

  recallKeyless(address: string, serviceType: string): Service | undefined {
    return this.#recall(this.#keyless, `${serviceType} ${address}`);
  }

  /**
   * Forgets the verifications of one service's keys, or of every key (a change to an account), and
   * every keyless one: a change to any service (its ranges, disabling, deletion) can move where an
   * address resolves.
   */
  forgetService(serviceId?: string): void {
    for (const [hash, { service }] of this.#keys) if (serviceId === undefined || service.id === serviceId) this.#keys.delete(hash);
    this.#keyless.clear();
  }

  #now(): number {
    return this.clock().getTime();
  }

  #remember<S extends Service>(verifications: Verifications<S>, what: string, verification: Verification<S>): void {
    verifications.set(what, verification);
    // The map holds the verifications of one minute: older ones go as new ones come.
    if (verifications.size % 256 === 0) for (const [other, { at }] of verifications) if (verification.at - at > VERIFIED_TRUST_MS) verifications.delete(other);
  }

  #recall<S extends Service>(verifications: Verifications<S>, what: string): S | undefined {
    const verification = verifications.get(what);
    const now = this.#now();
    if (!verification || now - verification.at > VERIFIED_TRUST_MS) return undefined;
    if (verification.expiresAt !== null && Date.parse(verification.expiresAt) <= now) return undefined;
    return verification.service;
  }
}

/** A lookup's failure → what `recall` gives from memory, when the database could not be reached and memory holds it; otherwise the failure, thrown again. */
export function recalledWhenUnavailable<T>(error: unknown, recall: () => T | undefined): T {
  const recalled = error instanceof StorageRefusal && error.failure === 'unavailable' ? recall() : undefined;
  if (recalled === undefined) throw error;
  return recalled;
}
