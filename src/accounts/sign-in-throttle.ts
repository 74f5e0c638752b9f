import crypto from 'node:crypto';
import type { Database } from '../store/database.js';
import { normaliseEmail } from './accounts.js';
import { isoNow } from './iso-time.js';

export interface ThrottleSettings {
  /** Failed sign-ins allowed per account and client address inside the window. */
  readonly maxFailures: number;
  readonly windowSeconds: number;
}

const DEFAULT_THROTTLE: ThrottleSettings = { maxFailures: 5, windowSeconds: 15 * 60 };

/**
 * Limits password guessing: after `maxFailures` failed sign-ins for one email from one client
 * address inside the window, further attempts are refused until the oldest failure ages out.
 * Failures live in the database, so the limit holds across every replica.
 */
export class SignInThrottle {
  constructor(
    private readonly db: Database,
    private readonly settings: ThrottleSettings = DEFAULT_THROTTLE,
  ) {}

  /** Seconds until another attempt is allowed; 0 when one is allowed now. */
  async retryAfterSeconds(email: string, clientAddress: string): Promise<number> {
    const failures = await this.db
      .selectFrom('sign_in_failures')
      .select('failed_at')
      .where('subject', '=', subject(email, clientAddress))
      .where('failed_at', '>', isoNow(-this.settings.windowSeconds))
      .orderBy('failed_at', 'desc')
      .limit(this.settings.maxFailures)
      .execute();
    if (failures.length < this.settings.maxFailures) return 0;
    const oldest = Date.parse(failures[failures.length - 1].failed_at);
    return Math.max(1, Math.ceil((oldest + this.settings.windowSeconds * 1000 - Date.now()) / 1000));
  }

  async recordFailure(email: string, clientAddress: string): Promise<void> {
    await this.db.deleteFrom('sign_in_failures').where('failed_at', '<=', isoNow(-this.settings.windowSeconds)).execute();
    await this.db
      .insertInto('sign_in_failures')
      .values({ id: crypto.randomUUID(), subject: subject(email, clientAddress), email_hash: emailHash(email), failed_at: isoNow() })
      .execute();
  }

  /** A successful sign-in forgives the earlier failures from that address. */
  async clear(email: string, clientAddress: string): Promise<void> {
    await this.db.deleteFrom('sign_in_failures').where('subject', '=', subject(email, clientAddress)).execute();
  }

  /** An operator's unlock: forgets the email's failed sign-ins from every address (how many there were). */
  async forget(email: string): Promise<number> {
    const { numDeletedRows } = await this.db.deleteFrom('sign_in_failures').where('email_hash', '=', emailHash(email)).executeTakeFirst();
    return Number(numDeletedRows);
  }
}

/** Hashed so the table holds neither emails nor addresses in the clear. */
function subject(email: string, clientAddress: string): string {
  return crypto.createHash('sha256').update(`${normaliseEmail(email)}\n${clientAddress}`).digest('hex');
}

function emailHash(email: string): string {
  return crypto.createHash('sha256').update(normaliseEmail(email)).digest('hex');
}
