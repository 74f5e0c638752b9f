import crypto from 'node:crypto';
import type { Database } from '../store/database.js';
import type { Account } from './accounts.js';
import { type Clock, isoAt } from './iso-time.js';

/** A console session lasts this long from sign-in, then its owner signs in again. */
export const SESSION_SECONDS = 7 * 24 * 3600;

const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

/**
 * Console sign-in sessions. The browser holds a random token; the database holds only its
 * SHA-256, so a copy of the database cannot be used to sign in.
 */
export class ConsoleSessions {
  constructor(
    private readonly db: Database,
    /** Decides when a session is over. */
    private readonly clock: Clock,
  ) {}

  /** Starts a session and returns the token for the cookie. */
  async start(accountId: string): Promise<string> {
    const token = crypto.randomBytes(32).toString('base64url');
    await this.db
      .insertInto('console_sessions')
      .values({ token_hash: hashToken(token), account_id: accountId, created_at: isoAt(this.clock), expires_at: isoAt(this.clock, SESSION_SECONDS) })
      .execute();
    // Sign-ins are rare: a good moment to drop every account's expired sessions.
    await this.db.deleteFrom('console_sessions').where('expires_at', '<=', isoAt(this.clock)).execute();
    return token;
  }

  /** The signed-in account for a cookie token, if its session is still valid. */
  async account(token: string): Promise<Account | undefined> {
    if (token.length > 100) return undefined;
    return this.db
      .selectFrom('console_sessions')
      .innerJoin('accounts', 'accounts.id', 'console_sessions.account_id')
      .select(['accounts.id', 'accounts.email', 'accounts.role'])
      .where('console_sessions.token_hash', '=', hashToken(token))
      .where('console_sessions.expires_at', '>', isoAt(this.clock))
      // Checked on every request, so disabling an account on any replica ends its sessions everywhere.
      .where('accounts.disabled_at', 'is', null)
      .executeTakeFirst();
  }

  async end(token: string): Promise<void> {
    await this.db.deleteFrom('console_sessions').where('token_hash', '=', hashToken(token)).execute();
  }
}
