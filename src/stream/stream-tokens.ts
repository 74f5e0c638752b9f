import crypto from 'node:crypto';
import type { Service } from '../accounts/service.js';
import { DetectdError } from '../core/errors.js';

interface Grant {
  readonly service: Service;
  readonly expiresAtMs: number;
}

/** Outstanding tokens at most; enough for any honest load, and it bounds the memory a key holder can make us spend. */
const MAX_OUTSTANDING = 10_000;

/**
 * Short-lived, single-use tokens that open one video stream. A browser's WebSocket cannot send
 * an Authorization header, so the page trades its API key (over a normal POST) for a token and
 * puts the token in the stream URL: what a URL leaks is then useless within a minute, or at once
 * once used. Tokens live only in this process's memory.
 */
export class StreamTokens {
  readonly #grants = new Map<string, Grant>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  issue(service: Service): { token: string; expiresAt: Date } {
    this.#forgetExpired();
    if (this.#grants.size >= MAX_OUTSTANDING) {
      throw new DetectdError('overloaded', 'too many unused stream tokens; retry shortly', 1);
    }
    const token = 'dst_' + crypto.randomBytes(24).toString('base64url');
    const expiresAtMs = this.now() + this.ttlMs;
    this.#grants.set(token, { service, expiresAtMs });
    return { token, expiresAt: new Date(expiresAtMs) };
  }

  /** The service the token was issued to, if the token is current; it cannot be used again. */
  redeem(token: string): Service | undefined {
    const grant = this.#grants.get(token);
    if (!grant) return undefined;
    this.#grants.delete(token);
    return grant.expiresAtMs > this.now() ? grant.service : undefined;
  }

  /** Grants expire in the order they were issued (one TTL for all), so the expired ones are at the front. */
  #forgetExpired(): void {
    const now = this.now();
    for (const [token, grant] of this.#grants) {
      if (grant.expiresAtMs > now) break;
      this.#grants.delete(token);
    }
  }
}
