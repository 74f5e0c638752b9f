import type { Kysely, Migration } from 'kysely';

/**
 * Keys are shown again to their owner on the service overview page, so besides the keyed hash
 * (lookup) each key is kept encrypted under the server secret. Keys issued before this
 * migration have no ciphertext: the page asks their owner to rotate them.
 */
export const apiKeyCiphertext: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('api_keys').addColumn('key_ciphertext', 'text').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('api_keys').dropColumn('key_ciphertext').execute();
  },
};
