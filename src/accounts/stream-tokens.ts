import crypto from 'node:crypto';
import { DetectdError } from '../core/errors.js';
import type { Database } from '../store/database.js';
import type { Service } from '../core/service.js';
import { toService } from './service-row.js';

/** Unused tokens one service may hold at once: plenty for any page, and it bounds what a key holder can make us store. */
const MAX_OUTSTANDING_PER_SERVICE = 1000;

/** What every stream token starts with, so a credential can be told for a token rather than an API key. */
export const STREAM_TOKEN_PREFIX = 'dst_';

const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

/**
 * Short-lived, single-use tokens that open one video stream. A browser's WebSocket cannot send
 * an Authorization header, so the page trades its API key (over a normal POST) for a token and
 * puts the token in the stream URL: what a URL leaks is then useless within a minute, or at once
 * once used. Tokens live in the database (only their SHA-256), so any replica redeems a token
 * another issued, and one atomic delete makes each usable once across all of them.
 */
export class StreamTokens {
  constructor(
    private readonly db: Database,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async issue(service: Service): Promise<{ token: string; expiresAt: Date }> {
    const now = new Date(this.now()).toISOString();
    await this.db.deleteFrom('stream_tokens').where('expires_at', '<=', now).execute();
    const { outstanding } = await this.db
      .selectFrom('stream_tokens')
      .select((eb) => eb.fn.countAll<number>().as('outstanding'))
      .where('service_id', '=', service.id)
      .executeTakeFirstOrThrow();
    if (Number(outstanding) >= MAX_OUTSTANDING_PER_SERVICE) {
      throw new DetectdError('overloaded', 'too many unused stream tokens for this service; retry shortly', 1);
    }
    const token = STREAM_TOKEN_PREFIX + crypto.randomBytes(24).toString('base64url');
    const expiresAt = new Date(this.now() + this.ttlMs);
    await this.db.insertInto('stream_tokens').values({ token_hash: hashToken(token), service_id: service.id, expires_at: expiresAt.toISOString() }).execute();
    return { token, expiresAt };
  }

  /**
   * The service the token was issued to, if the token is current; it cannot be used again, on
   * any replica: the row is deleted and read in one statement, so of two concurrent redeems only
   * one gets it back.
   */
  async redeem(token: string): Promise<Service | undefined> {
    if (token.length > 100) return undefined;
    const grant = await this.db.deleteFrom('stream_tokens').where('token_hash', '=', hashToken(token)).returning(['service_id', 'expires_at']).executeTakeFirst();
    if (!grant || grant.expires_at <= new Date(this.now()).toISOString()) return undefined;
    const row = await this.db.selectFrom('services').selectAll().where('id', '=', grant.service_id).executeTakeFirst();
    if (!row) return undefined;
    const service = toService(row);
    if (service.disabled) throw new DetectdError('forbidden', `service "${service.name}" is disabled`);
    return service;
  }
}
