import type { Kysely, Migration } from 'kysely';

/**
 * An operator can disable an account (`detectd account disable`): while `disabled_at` is set its
 * API keys and console sign-in are refused; its services, keys and usage are kept for enabling again.
 */
export const accountDisabled: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('accounts').addColumn('disabled_at', 'text').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('accounts').dropColumn('disabled_at').execute();
  },
};
