import crypto from 'node:crypto';
import type { Database } from '../store/database.js';
import { type Account, Accounts } from './accounts.js';
import { AccountError } from './account-error.js';
import { isoNow } from './iso-time.js';

/**
 * Who may create an account in the console (`DETECTD_SIGNUP`, docs/console.md "Sign-up"):
 * - `invite` (the default): the first account, which becomes the administrator, then only holders
 *   of an administrator's invitation link — so a link the administrator makes always works;
 * - `open`: anyone who can reach the console;
 * - `closed`: nobody; accounts come from the CLI, and no invitation can be made.
 * The CLI (`detectd account create`) may always create accounts.
 */
export type SignUpPolicy = 'open' | 'invite' | 'closed';

/** An invitation link stays valid this long, and works once. */
export const INVITATION_SECONDS = 7 * 24 * 3600;

/** What a visitor may do on the sign-up page: sign up, sign up with this invitation, or nothing (and why). */
export type SignUpAccess = { readonly allowed: true } | { readonly allowed: false; readonly reason: 'closed' | 'needs-invitation' | 'invalid-invitation' };

export interface Invitation {
  readonly id: string;
  readonly createdAt: string;
  readonly expiresAt: string;
}

const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

/** Console sign-up under the server's policy, and the invitations administrators hand out. */
export class SignUps {
  constructor(
    private readonly db: Database,
    readonly policy: SignUpPolicy,
  ) {}

  /** Whether an invitation link made now would let someone sign up (all but `closed`). */
  get invitationsWork(): boolean {
    return this.policy !== 'closed';
  }

  /** Whether a sign-up (carrying `invitation`, if any) would be accepted now. */
  async access(invitation: string | undefined): Promise<SignUpAccess> {
    if (this.policy === 'closed') return { allowed: false, reason: 'closed' };
    if (this.policy === 'open') return { allowed: true };
    if (!(await new Accounts(this.db).any())) return { allowed: true };
    if (!invitation) return { allowed: false, reason: 'needs-invitation' };
    return (await this.#usable(this.db, invitation).executeTakeFirst()) ? { allowed: true } : { allowed: false, reason: 'invalid-invitation' };
  }

  /**
   * Creates the account if the policy admits it now; undefined if not. An invitation is used up
   * in the same transaction, so a link works once even when two replicas receive it together.
   */
  async signUp(email: string, password: string, invitation: string | undefined): Promise<Account | undefined> {
    return this.db.transaction().execute(async (trx) => {
      if (!(await new SignUps(trx, this.policy).access(invitation)).allowed) return undefined;
      if (this.policy === 'invite' && invitation && (await new Accounts(trx).any())) {
        const used = await trx
          .updateTable('invitations')
          .set({ used_at: isoNow() })
          .where('token_hash', '=', hashToken(invitation))
          .where('used_at', 'is', null)
          .where('expires_at', '>', isoNow())
          .executeTakeFirst();
        if (used.numUpdatedRows !== 1n) return undefined;
      }
      // An AccountError (taken email, weak password) rolls the invitation back: it still works.
      return new Accounts(trx).createAccount(email, password);
    });
  }

  /** A new invitation; the token is returned only here (it is stored hashed) and goes into the link. */
  async invite(admin: Account): Promise<{ invitation: Invitation; token: string }> {
    if (admin.role !== 'admin') throw new Error('only an administrator invites');
    if (!this.invitationsWork) throw new AccountError('sign_up_closed', 'sign-up is closed on this server (DETECTD_SIGNUP=closed): an invitation link would not work');
    const token = crypto.randomBytes(32).toString('base64url');
    const invitation = { id: crypto.randomUUID(), createdAt: isoNow(), expiresAt: isoNow(INVITATION_SECONDS) };
    await this.db
      .insertInto('invitations')
      .values({ id: invitation.id, token_hash: hashToken(token), created_by: admin.id, created_at: invitation.createdAt, expires_at: invitation.expiresAt, used_at: null })
      .execute();
    return { invitation, token };
  }

  /** Invitations not yet used nor expired, newest first. */
  async pending(): Promise<Invitation[]> {
    const rows = await this.db
      .selectFrom('invitations')
      .select(['id', 'created_at', 'expires_at'])
      .where('used_at', 'is', null)
      .where('expires_at', '>', isoNow())
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map((row) => ({ id: row.id, createdAt: row.created_at, expiresAt: row.expires_at }));
  }

  /** Withdraws an unused invitation; false if there was none by that id. */
  async withdraw(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('invitations').where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
    return result.numDeletedRows === 1n;
  }

  #usable(db: Database, token: string) {
    return db.selectFrom('invitations').select('id').where('token_hash', '=', hashToken(token)).where('used_at', 'is', null).where('expires_at', '>', isoNow());
  }
}
