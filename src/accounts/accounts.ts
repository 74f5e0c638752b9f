import crypto from 'node:crypto';
import type { Database } from '../store/database.js';
import { generateApiKey, hashApiKey, looksLikeApiKey, sameDigest } from './api-keys.js';
import { hashPassword } from './passwords.js';

export const SERVICE_TYPES = ['object-detection'] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];

export function isServiceType(value: string): value is ServiceType {
  return (SERVICE_TYPES as readonly string[]).includes(value);
}

export type AccountErrorCode =
  | 'invalid_email'
  | 'weak_password'
  | 'email_taken'
  | 'account_not_found'
  | 'invalid_service_name'
  | 'service_name_taken'
  | 'unknown_service_type';

/** A rule of the account domain was broken; `code` says which, the message says it to a person. */
export class AccountError extends Error {
  constructor(
    readonly code: AccountErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface Account {
  readonly id: string;
  readonly email: string;
}

export interface Service {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly type: ServiceType;
  /** Detector name, or null for the server default. */
  readonly model: string | null;
  readonly disabled: boolean;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const SERVICE_NAME = /^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,62}$/u;
export const MIN_PASSWORD_LENGTH = 8;

const now = () => new Date().toISOString();

function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Service accounts, their services and the services' API keys. */
export class Accounts {
  constructor(
    private readonly db: Database,
    private readonly secret: string,
  ) {}

  async createAccount(email: string, password: string): Promise<Account> {
    const normalised = normaliseEmail(email);
    if (!EMAIL.test(normalised)) throw new AccountError('invalid_email', `"${email}" is not an email address`);
    if (password.length < MIN_PASSWORD_LENGTH) {
      throw new AccountError('weak_password', `the password must have at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    if (await this.findAccount(normalised)) throw new AccountError('email_taken', `an account for ${normalised} already exists`);
    const account = { id: crypto.randomUUID(), email: normalised };
    await this.db
      .insertInto('accounts')
      .values({ ...account, password_hash: await hashPassword(password), created_at: now() })
      .execute();
    return account;
  }

  async findAccount(email: string): Promise<(Account & { passwordHash: string }) | undefined> {
    const row = await this.db
      .selectFrom('accounts')
      .select(['id', 'email', 'password_hash'])
      .where('email', '=', normaliseEmail(email))
      .executeTakeFirst();
    return row && { id: row.id, email: row.email, passwordHash: row.password_hash };
  }

  /** Creates a service with its first API key; the key is returned once, here. */
  async createService(
    accountEmail: string,
    fields: { name: string; type?: string; model?: string | null },
  ): Promise<{ service: Service; apiKey: string }> {
    const account = await this.findAccount(accountEmail);
    if (!account) throw new AccountError('account_not_found', `no account for ${accountEmail}`);
    const name = fields.name.trim();
    if (!SERVICE_NAME.test(name)) {
      throw new AccountError('invalid_service_name', 'a service name is 1–63 letters, digits, spaces, ".", "_" or "-"');
    }
    const type = fields.type ?? 'object-detection';
    if (!isServiceType(type)) throw new AccountError('unknown_service_type', `unknown service type "${type}"; known: ${SERVICE_TYPES.join(', ')}`);
    const taken = await this.db
      .selectFrom('services')
      .select('id')
      .where('account_id', '=', account.id)
      .where('name', '=', name)
      .executeTakeFirst();
    if (taken) throw new AccountError('service_name_taken', `this account already has a service named "${name}"`);
    const service: Service = { id: crypto.randomUUID(), accountId: account.id, name, type, model: fields.model ?? null, disabled: false };
    const apiKey = generateApiKey();
    const createdAt = now();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('services')
        .values({ id: service.id, account_id: account.id, name, type, model: service.model, created_at: createdAt, disabled_at: null })
        .execute();
      await trx
        .insertInto('api_keys')
        .values({ id: crypto.randomUUID(), service_id: service.id, key_hash: hashApiKey(this.secret, apiKey), created_at: createdAt, expires_at: null, revoked_at: null })
        .execute();
    });
    return { service, apiKey };
  }

  /** The service an API key belongs to, if the key is current (not revoked, not past its grace period). */
  async authenticate(apiKey: string): Promise<Service | undefined> {
    if (!looksLikeApiKey(apiKey)) return undefined;
    const keyHash = hashApiKey(this.secret, apiKey);
    const row = await this.db
      .selectFrom('api_keys')
      .innerJoin('services', 'services.id', 'api_keys.service_id')
      .select(['api_keys.key_hash', 'api_keys.expires_at', 'api_keys.revoked_at', 'services.id', 'services.account_id', 'services.name', 'services.type', 'services.model', 'services.disabled_at'])
      .where('api_keys.key_hash', '=', keyHash)
      .executeTakeFirst();
    if (!row || !sameDigest(row.key_hash, keyHash)) return undefined;
    if (row.revoked_at !== null || (row.expires_at !== null && row.expires_at <= now())) return undefined;
    return {
      id: row.id,
      accountId: row.account_id,
      name: row.name,
      type: row.type as ServiceType,
      model: row.model,
      disabled: row.disabled_at !== null,
    };
  }
}
