import type { Kysely, Migration } from 'kysely';

/**
 * `sign_in_failures.email_hash`: the failures of one email from every address can be found, so
 * that an operator lifts a lockout (`detectd account unlock`, `account reset-password`). The
 * table is made anew: it holds at most the last 15 minutes' failures, which an upgrade forgets.
 */
export const signInFailureEmail: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.dropTable('sign_in_failures').execute();
    await db.schema
      .createTable('sign_in_failures')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('subject', 'text', (column) => column.notNull())
      .addColumn('email_hash', 'text', (column) => column.notNull())
      .addColumn('failed_at', 'text', (column) => column.notNull())
      .execute();
    await db.schema.createIndex('sign_in_failures_subject_idx').on('sign_in_failures').columns(['subject', 'failed_at']).execute();
    await db.schema.createIndex('sign_in_failures_email_idx').on('sign_in_failures').column('email_hash').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('sign_in_failures_email_idx').execute();
    await db.schema.alterTable('sign_in_failures').dropColumn('email_hash').execute();
  },
};
