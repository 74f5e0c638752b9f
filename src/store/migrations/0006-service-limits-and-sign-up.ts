import type { Kysely, Migration } from 'kysely';
import { sql } from '../kysely.js';

/**
 * Sign-up control and per-service limits.
 * - `accounts.role`: the first account becomes `admin` (it may invite others); every later one is `member`.
 * - `invitations`: single-use sign-up links an administrator makes when sign-up is by invitation (hashed token).
 * - `services.rate_limit_per_minute` / `monthly_quota`: the service's limits; null means none.
 * - `services.rate_tat_ms`: the request-rate limiter's state (GCRA's theoretical arrival time, epoch
 *   milliseconds), kept in the row so that every replica updates the same value in one statement.
 * - `service_monthly_calls`: admitted calls per service and UTC month, counted against the quota.
 */
export const serviceLimitsAndSignUp: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('accounts').addColumn('role', 'text', (column) => column.notNull().defaultTo('member')).execute();
    // Databases from before this migration: their oldest account is the administrator.
    await sql`update accounts set role = 'admin' where id = (select id from accounts order by created_at limit 1)`.execute(db);
    await db.schema
      .createTable('invitations')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('token_hash', 'text', (column) => column.notNull().unique())
      .addColumn('created_by', 'text', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (column) => column.notNull())
      .addColumn('expires_at', 'text', (column) => column.notNull())
      .addColumn('used_at', 'text')
      .execute();
    await db.schema.alterTable('services').addColumn('rate_limit_per_minute', 'integer').execute();
    await db.schema.alterTable('services').addColumn('monthly_quota', 'integer').execute();
    await db.schema.alterTable('services').addColumn('rate_tat_ms', 'double precision').execute();
    await db.schema
      .createTable('service_monthly_calls')
      .addColumn('service_id', 'text', (column) => column.notNull().references('services.id').onDelete('cascade'))
      .addColumn('month', 'text', (column) => column.notNull())
      .addColumn('calls', 'integer', (column) => column.notNull())
      .addPrimaryKeyConstraint('service_monthly_calls_pk', ['service_id', 'month'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('service_monthly_calls').execute();
    await db.schema.alterTable('services').dropColumn('rate_tat_ms').execute();
    await db.schema.alterTable('services').dropColumn('monthly_quota').execute();
    await db.schema.alterTable('services').dropColumn('rate_limit_per_minute').execute();
    await db.schema.dropTable('invitations').execute();
    await db.schema.alterTable('accounts').dropColumn('role').execute();
  },
};
