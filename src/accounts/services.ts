import crypto from 'node:crypto';
import type { Database } from '../store/database.js';
import { isUniqueViolation } from '../store/unique-violation.js';
import { AccountError, throwProblems } from './account-error.js';
import { inAddressRanges, LOOPBACK_RANGES, parseAddressRanges } from './address-ranges.js';
import { isoNow } from './iso-time.js';
import type { Service } from '../core/service.js';
import { SERVICE_COLUMNS, toService } from './service-row.js';
import type { ServiceKeys } from './service-keys.js';
import { type RecentlyVerified, recalledWhenUnavailable } from './recently-verified.js';

export interface NewService {
  readonly name: string;
  readonly type?: string;
  readonly model?: string | null;
}

/** A service's limits; the DeepStack prediction cap, left out, keeps its value (the console's limits form has no field for it). */
export type ServiceLimitSettings = Pick<Service, 'rateLimitPerMinute' | 'monthlyQuota'> & Partial<Pick<Service, 'deepStackMaxPredictions'>>;

export const MAX_RATE_PER_MINUTE = 1_000_000;
export const MAX_MONTHLY_QUOTA = 1_000_000_000;
/** DETECTD_MAX_DETECTIONS' own maximum: no answer holds more. */
export const MAX_DEEPSTACK_PREDICTIONS = 10_000;

const SERVICE_NAME = /^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,62}$/u;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const nameTakenError = (name: string) => new AccountError('service_name_taken', `this account already has a service named "${name}"`, 'name');

/**
 * A failed write → the same service_name_taken as the check before it, when another call took the
 * name between the check and the write (the table's unique constraint refused it); else the error as it is.
 */
const nameTakenMeanwhile =
  (name: string) =>
  (error: unknown): never => {
    throw isUniqueViolation(error, 'services', ['account_id', 'name']) ? nameTakenError(name) : error;
  };

/** The services of each account. Every read and change is scoped to the owning account. */
export class Services {
  constructor(
    private readonly db: Database,
    private readonly keys: ServiceKeys,
    /** This replica's memory of what the database verified: keyless resolutions recalled through an outage, forgotten on a change here. */
    private readonly verified: RecentlyVerified,
    /** Service types a service may have; the first is the default. */
    private readonly serviceTypes: readonly string[],
    /** Models a service may name; empty: any name is accepted. */
    private readonly modelNames: readonly string[] = [],
    /** Models a service of a type may name; absent: `modelNames` whatever the type. */
    private readonly modelsOfType?: (type: string) => readonly string[],
  ) {}

  /** Creates a service with its first API key; the key is returned here and can be revealed again later. Every broken rule is reported at once. */
  async create(accountId: string, fields: NewService): Promise<{ service: Service; apiKey: string }> {
    const name = fields.name.trim();
    const type = fields.type ?? this.serviceTypes[0];
    const model = fields.model || null;
    throwProblems([this.#nameProblem(name), this.#typeProblem(type), this.#modelProblem(type, model)]);
    throwProblems([await this.#nameTaken(accountId, name)]);
    const service: Service = { id: crypto.randomUUID(), accountId, name, type, model, createdAt: isoNow(), disabled: false, keylessAddressRanges: null, rateLimitPerMinute: null, monthlyQuota: null, deepStackMaxPredictions: null };
    const apiKey = await this.db
      .transaction()
      .execute(async (trx) => {
        await trx
          .insertInto('services')
          .values({ id: service.id, account_id: accountId, name, type, model, created_at: service.createdAt, disabled_at: null, keyless_address_ranges: null })
          .execute();
        return this.keys.issue(trx, service.id);
      })
      .catch(nameTakenMeanwhile(name));
    return { service, apiKey };
  }

  #nameProblem(name: string): AccountError | undefined {
    return SERVICE_NAME.test(name) ? undefined : new AccountError('invalid_service_name', 'a service name is 1–63 letters, digits, spaces, ".", "_" or "-"', 'name');
  }

  #typeProblem(type: string): AccountError | undefined {
    return this.serviceTypes.includes(type) ? undefined : new AccountError('unknown_service_type', `unknown service type "${type}"; known: ${this.serviceTypes.join(', ')}`, 'type');
  }

  #modelProblem(type: string, model: string | null): AccountError | undefined {
    if (model === null || this.modelNames.length === 0) return undefined;
    const ofType = this.modelsOfType?.(type) ?? this.modelNames;
    if (ofType.includes(model)) return undefined;
    const what = this.modelNames.includes(model) ? `"${model}" does not serve ${type} services` : `this server has no model named "${model}"`;
    return new AccountError('unknown_model', `${what}; choose one of: ${ofType.join(', ')}`, 'model');
  }

  /** A problem if another service of the account (not `exceptId`) has this name. */
  async #nameTaken(accountId: string, name: string, exceptId?: string): Promise<AccountError | undefined> {
    let query = this.db.selectFrom('services').select('id').where('account_id', '=', accountId).where('name', '=', name);
    if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
    return (await query.executeTakeFirst()) ? nameTakenError(name) : undefined;
  }

  async list(accountId: string): Promise<Service[]> {
    const rows = await this.#select().where('account_id', '=', accountId).orderBy('created_at', 'asc').execute();
    return rows.map(toService);
  }

  /** The account's service with this id; undefined for a missing id and for another account's service alike. */
  async find(accountId: string, serviceId: string): Promise<Service | undefined> {
    if (!UUID.test(serviceId)) return undefined;
    const row = await this.#select().where('account_id', '=', accountId).where('id', '=', serviceId).executeTakeFirst();
    return row && toService(row);
  }

  /** Every service of every account (or of one), oldest first: what an operator lists. */
  async listAll(accountId?: string): Promise<Service[]> {
    let query = this.#select().orderBy('created_at', 'asc').orderBy('name', 'asc');
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    return (await query.execute()).map(toService);
  }

  /** The service with this id, whichever account owns it: for operators, never for a console route. */
  async findAnywhere(serviceId: string): Promise<Service | undefined> {
    if (!UUID.test(serviceId)) return undefined;
    const row = await this.#select().where('id', '=', serviceId).executeTakeFirst();
    return row && toService(row);
  }

  /** The account's service with this name. */
  async findByName(accountId: string, name: string): Promise<Service | undefined> {
    const row = await this.#select().where('account_id', '=', accountId).where('name', '=', name.trim()).executeTakeFirst();
    return row && toService(row);
  }

  /**
   * Renames the service and sets its model (null: the server default), both checked at once like
   * a new service's. Its keys, limits and usage stay; calls use the new model from the next one on.
   */
  async update(service: Service, fields: { readonly name: string; readonly model: string | null }): Promise<Service> {
    const name = fields.name.trim();
    const model = fields.model || null;
    throwProblems([this.#nameProblem(name), this.#modelProblem(service.type, model)]);
    throwProblems([await this.#nameTaken(service.accountId, name, service.id)]);
    await this.db
      .updateTable('services')
      .set({ name, model })
      .where('id', '=', service.id)
      .where('account_id', '=', service.accountId)
      .execute()
      .catch(nameTakenMeanwhile(name));
    this.verified.forgetService(service.id);
    return { ...service, name, model };
  }

  async setDisabled(service: Service, disabled: boolean): Promise<void> {
    await this.db
      .updateTable('services')
      .set({ disabled_at: disabled ? isoNow() : null })
      .where('id', '=', service.id)
      .where('account_id', '=', service.accountId)
      .execute();
    this.verified.forgetService(service.id);
  }

  /**
   * Turns keyless DeepStack calls on from `rangesText` (CIDR list; empty: this machine only) or, with
   * null, off. Returns the ranges stored. Throws an AccountError for a bad range.
   */
  async setKeylessAddressRanges(service: Service, rangesText: string | null): Promise<readonly string[] | null> {
    const ranges = rangesText === null ? null : rangesText.trim() === '' ? LOOPBACK_RANGES : parseAddressRanges(rangesText);
    await this.db
      .updateTable('services')
      .set({ keyless_address_ranges: ranges === null ? null : ranges.join(' ') })
      .where('id', '=', service.id)
      .where('account_id', '=', service.accountId)
      .execute();
    this.verified.forgetService(service.id);
    return ranges;
  }

  /**
   * The service that a call without a key from `address` acts as: the oldest enabled service of
   * `type`, of an account that is not disabled, whose keyless ranges hold the address; undefined when none does.
   * While the database cannot be reached, the service it resolved to in the last minute (recently-verified.ts).
   */
  async keylessServiceFor(address: string, type: string): Promise<Service | undefined> {
    try {
      const service = await this.#keylessLookup(address, type);
      this.verified.rememberKeyless(address, type, service);
      return service;
    } catch (error) {
      return recalledWhenUnavailable(error, () => this.verified.recallKeyless(address, type));
    }
  }

  async #keylessLookup(address: string, type: string): Promise<Service | undefined> {
    const rows = await this.#select()
      .where('keyless_address_ranges', 'is not', null)
      .where('disabled_at', 'is', null)
      .where('type', '=', type)
      .where((eb) => eb('account_id', 'not in', eb.selectFrom('accounts').select('id').where('disabled_at', 'is not', null)))
      .orderBy('created_at', 'asc')
      .execute();
    const row = rows.find((candidate) => inAddressRanges(address, candidate.keyless_address_ranges!.split(' ')));
    return row && toService(row);
  }

  /**
   * Sets (or, with null, removes) the service's request-rate limit and monthly quota, both enforced by
   * limits/service-limits.ts, and its cap on the predictions of a DeepStack answer (the DeepStack door
   * keeps the most confident). Nothing is saved unless every one is valid.
   */
  async setLimits(service: Service, limits: ServiceLimitSettings): Promise<void> {
    throwProblems(
      (
        [
          ['rateLimitPerMinute', 'requests per minute', MAX_RATE_PER_MINUTE],
          ['monthlyQuota', 'calls per month', MAX_MONTHLY_QUOTA],
          ['deepStackMaxPredictions', 'DeepStack predictions per answer', MAX_DEEPSTACK_PREDICTIONS],
        ] as const
      ).map(([field, name, max]) => {
        const value = limits[field] ?? null;
        return value !== null && (!Number.isInteger(value) || value < 1 || value > max)
          ? new AccountError('invalid_limit', `${name} must be a whole number from 1 to ${max}, or empty for no limit`, field)
          : undefined;
      }),
    );
    await this.db
      .updateTable('services')
      .set({ rate_limit_per_minute: limits.rateLimitPerMinute, monthly_quota: limits.monthlyQuota, deepstack_max_predictions: limits.deepStackMaxPredictions })
      .where('id', '=', service.id)
      .where('account_id', '=', service.accountId)
      .execute();
    this.verified.forgetService(service.id);
  }

  /** Deletes the service, its keys (cascade) and its usage counters. */
  async delete(service: Service): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('usage_counters').where('service_id', '=', service.id).execute();
      await trx.deleteFrom('service_monthly_calls').where('service_id', '=', service.id).execute();
      await trx.deleteFrom('services').where('id', '=', service.id).where('account_id', '=', service.accountId).execute();
    });
    this.verified.forgetService(service.id);
  }

  #select() {
    return this.db.selectFrom('services').select(SERVICE_COLUMNS);
  }
}
