import crypto from 'node:crypto';
import type { Database } from '../store/database.js';
import { isUniqueViolation } from '../store/unique-violation.js';
import type { AccountRole } from '../store/tables.js';
import { AccountError, throwProblems } from './account-error.js';
import { isoNow } from './iso-time.js';
import { hashPassword, verifyPassword } from './passwords.js';
import type { RecentlyVerified } from './recently-verified.js';

export type { AccountRole } from '../store/tables.js';

export interface Account {
  readonly id: string;
  readonly email: string;
  /** `admin`: the first account, which may invite others (docs/console.md "Sign-up"). */
  readonly role: AccountRole;
}

/** An account as an operator lists it (`detectd account list`). */
export interface AccountSummary extends Account {
  readonly createdAt: string;
  readonly disabled: boolean;
  readonly services: number;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MIN_PASSWORD_LENGTH = 8;
/** scrypt's cost makes longer inputs pointless; the bound keeps a huge form field from costing CPU. */
export const MAX_PASSWORD_LENGTH = 1024;

/** Why `password` cannot be a password (too short or too long), as an error about the input `field`; undefined if it can. */
export function passwordProblem(password: string, field: string): AccountError | undefined {
  if (password.length >= MIN_PASSWORD_LENGTH && password.length <= MAX_PASSWORD_LENGTH) return undefined;
  return new AccountError('weak_password', `the password must have ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`, field);
}

function toSummary(row: { id: string; email: string; role: AccountRole; created_at: string; disabled_at: string | null; services: string | number }): AccountSummary {
  return { id: row.id, email: row.email, role: row.role, createdAt: row.created_at, disabled: row.disabled_at !== null, services: Number(row.services) };
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Service accounts: the people who sign in to the console and own services. */
export class Accounts {
  /** Hash checked when no account matches, so a wrong email costs as long as a wrong password. */
  #decoyHash: Promise<string> | undefined;

  constructor(
    private readonly db: Database,
    /** Told when an account is disabled or enabled, so that what this replica verified of its keys and keyless calls is forgotten at once. */
    private readonly verified?: Pick<RecentlyVerified, 'forgetService'>,
  ) {}

  async createAccount(email: string, password: string): Promise<Account> {
    const normalised = normaliseEmail(email);
    throwProblems([
      normalised.length > 254 || !EMAIL.test(normalised) ? new AccountError('invalid_email', `not an email address: "${email}"`, 'email') : undefined,
      passwordProblem(password, 'password'),
    ]);
    const emailTaken = () => new AccountError('email_taken', `an account for ${normalised} already exists`, 'email');
    if (await this.findAccount(normalised)) throw emailTaken();
    // The first account administers the server; a database without one (e.g. from before roles) gets one with its next account.
    const hasAdmin = await this.db.selectFrom('accounts').select('id').where('role', '=', 'admin').executeTakeFirst();
    const account: Account = { id: crypto.randomUUID(), email: normalised, role: hasAdmin ? 'member' : 'admin' };
    await this.db
      .insertInto('accounts')
      .values({ ...account, password_hash: await hashPassword(password), created_at: isoNow(), disabled_at: null })
      .execute()
      .catch((error: unknown) => {
        // Another call created the account between the check above and this insert.
        throw isUniqueViolation(error, 'accounts', ['email']) ? emailTaken() : error;
      });
    return account;
  }

  async findAccount(email: string): Promise<(Account & { passwordHash: string; disabled: boolean }) | undefined> {
    const row = await this.db
      .selectFrom('accounts')
      .select(['id', 'email', 'role', 'password_hash', 'disabled_at'])
      .where('email', '=', normaliseEmail(email))
      .executeTakeFirst();
    return row && { id: row.id, email: row.email, role: row.role, passwordHash: row.password_hash, disabled: row.disabled_at !== null };
  }

  /** True once any account exists (the default sign-up policy admits only the first). */
  async any(): Promise<boolean> {
    return (await this.db.selectFrom('accounts').select('id').limit(1).executeTakeFirst()) !== undefined;
  }

  /**
   * The account these credentials sign in to, or undefined; the same work is done whether or not
   * the email exists. Right credentials of a disabled account throw `account_disabled`, so the
   * person is told why rather than to retype a password that is right.
   */
  async checkCredentials(email: string, password: string): Promise<Account | undefined> {
    if (password.length > MAX_PASSWORD_LENGTH) return undefined;
    const account = await this.findAccount(email);
    const stored = account?.passwordHash ?? (await (this.#decoyHash ??= hashPassword(crypto.randomUUID())));
    const matches = await verifyPassword(password, stored);
    if (!account || !matches) return undefined;
    if (account.disabled) throw new AccountError('account_disabled', `the account ${account.email} is disabled`);
    return { id: account.id, email: account.email, role: account.role };
  }

  /** Every account, oldest first, with its number of services. */
  async list(): Promise<AccountSummary[]> {
    return (await this.#summaries().execute()).map(toSummary);
  }

  /** The account with this id (as the console's administrator pages name it), with its state; undefined if there is none. */
  async findById(id: string): Promise<AccountSummary | undefined> {
    const row = await this.#summaries().where('accounts.id', '=', id).executeTakeFirst();
    return row && toSummary(row);
  }

  #summaries() {
    return this.db
      .selectFrom('accounts')
      .leftJoin('services', 'services.account_id', 'accounts.id')
      .select((eb) => ['accounts.id', 'accounts.email', 'accounts.role', 'accounts.created_at', 'accounts.disabled_at', eb.fn.count<string | number>('services.id').as('services')])
      .groupBy(['accounts.id', 'accounts.email', 'accounts.role', 'accounts.created_at', 'accounts.disabled_at'])
      .orderBy('accounts.created_at', 'asc')
      .orderBy('accounts.email', 'asc');
  }

  /**
   * Disables (or enables again) the account with this email. Disabling ends its console sessions
   * at once; its API keys are refused from the next call on (every call reads the database, and
   * this replica forgets the keys it verified).
   */
  async setDisabled(email: string, disabled: boolean): Promise<Account> {
    const account = await this.findAccount(email);
    if (!account) throw new AccountError('account_not_found', `no account for ${normaliseEmail(email)}`);
    await this.db.transaction().execute(async (trx) => {
      // Keep the first disabling time when disabled twice.
      const update = trx.updateTable('accounts').where('id', '=', account.id);
      await (disabled ? update.set({ disabled_at: isoNow() }).where('disabled_at', 'is', null) : update.set({ disabled_at: null })).execute();
      if (disabled) await trx.deleteFrom('console_sessions').where('account_id', '=', account.id).execute();
    });
    this.verified?.forgetService();
    return { id: account.id, email: account.email, role: account.role };
  }

  /**
   * The owner's change of password: `current` must be right (else `wrong_password`, about the input
   * `currentPassword`) and `next` a valid password (about `newPassword`); both are checked at once.
   * Every console session of the account ends: the caller starts a new one for the browser it acts in.
   */
  async changePassword(account: Account, current: string, next: string): Promise<void> {
    const stored = await this.findAccount(account.email);
    if (!stored) throw new AccountError('account_not_found', `no account for ${account.email}`);
    const right = current.length <= MAX_PASSWORD_LENGTH && (await verifyPassword(current, stored.passwordHash));
    throwProblems([right ? undefined : new AccountError('wrong_password', 'the current password is not right', 'currentPassword'), passwordProblem(next, 'newPassword')]);
    await this.#replacePassword(stored.id, next);
  }

  /** An operator's reset (`detectd account reset-password`): sets `password` for the account with this email and ends all its console sessions. */
  async resetPassword(email: string, password: string): Promise<Account> {
    const account = await this.findAccount(email);
    if (!account) throw new AccountError('account_not_found', `no account for ${normaliseEmail(email)}`);
    throwProblems([passwordProblem(password, 'password')]);
    await this.#replacePassword(account.id, password);
    return { id: account.id, email: account.email, role: account.role };
  }

  /** A new password ends every session: whoever signed in with the old one is signed out on every replica at once. */
  async #replacePassword(accountId: string, password: string): Promise<void> {
    const hash = await hashPassword(password);
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('accounts').set({ password_hash: hash }).where('id', '=', accountId).execute();
      await trx.deleteFrom('console_sessions').where('account_id', '=', accountId).execute();
    });
  }
}
