import type { Kysely, Migration } from 'kysely';

/** Console sign-in sessions (by hashed token) and failed sign-ins (for throttling, shared by all replicas). */
export const consoleSessions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('console_sessions')
      .addColumn('token_hash', 'text', (column) => column.primaryKey())
      .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (column) => column.notNull())
      .addColumn('expires_at', 'text', (column) => column.notNull())
      .execute();
    await db.schema.createIndex('console_sessions_account_idx').on('console_sessions').column('account_id').execute();
    await db.schema
      .createTable('sign_in_failures')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('subject', 'text', (column) => column.notNull())
      .addColumn('failed_at', 'text', (column) => column.notNull())
      .execute();
    await db.schema.createIndex('sign_in_failures_subject_idx').on('sign_in_failures').columns(['subject', 'failed_at']).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('sign_in_failures').execute();
    await db.schema.dropTable('console_sessions').execute();
  },
};
