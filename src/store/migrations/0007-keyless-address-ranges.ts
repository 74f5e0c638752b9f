import type { Kysely, Migration } from 'kysely';

/**
 * Keyless DeepStack calls (for clients such as Blue Iris that cannot send a key): a service may
 * name the address ranges from which calls without a key act as it. Null, the default, is off.
 */
export const keylessAddressRanges: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('services').addColumn('keyless_address_ranges', 'text').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('services').dropColumn('keyless_address_ranges').execute();
  },
};
