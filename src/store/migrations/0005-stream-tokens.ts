import type { Kysely, Migration } from 'kysely';

/** Single-use stream tokens (by hash), shared by every replica so that any of them redeems a token another issued. */
export const streamTokens: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('stream_tokens')
      .addColumn('token_hash', 'text', (column) => column.primaryKey())
      .addColumn('service_id', 'text', (column) => column.notNull().references('services.id').onDelete('cascade'))
      .addColumn('expires_at', 'text', (column) => column.notNull())
      .execute();
    await db.schema.createIndex('stream_tokens_service_idx').on('stream_tokens').columns(['service_id', 'expires_at']).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('stream_tokens').execute();
  },
};
