import type { Kysely, Migration } from 'kysely';

/** Shipped migrations are frozen: change the schema with a new file, never by editing this one. */
export const accountsServicesKeys: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('accounts')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('email', 'text', (column) => column.notNull().unique())
      .addColumn('password_hash', 'text', (column) => column.notNull())
      .addColumn('created_at', 'text', (column) => column.notNull())
      .execute();
    await db.schema
      .createTable('services')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('account_id', 'text', (column) => column.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', 'text', (column) => column.notNull())
      .addColumn('type', 'text', (column) => column.notNull())
      .addColumn('model', 'text')
      .addColumn('created_at', 'text', (column) => column.notNull())
      .addColumn('disabled_at', 'text')
      .addUniqueConstraint('services_account_name_unique', ['account_id', 'name'])
      .execute();
    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('service_id', 'text', (column) => column.notNull().references('services.id').onDelete('cascade'))
      .addColumn('key_hash', 'text', (column) => column.notNull().unique())
      .addColumn('created_at', 'text', (column) => column.notNull())
      .addColumn('expires_at', 'text')
      .addColumn('revoked_at', 'text')
      .execute();
    await db.schema.createIndex('api_keys_service_idx').on('api_keys').column('service_id').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('api_keys').execute();
    await db.schema.dropTable('services').execute();
    await db.schema.dropTable('accounts').execute();
  },
};
