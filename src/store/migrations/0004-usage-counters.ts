import type { Kysely, Migration } from 'kysely';

/**
 * Per-minute usage counters of each service: one row per (service, minute, counter), added to by
 * every replica's flusher with an upsert. No foreign key: a flush racing a service's deletion
 * leaves a harmless orphan row instead of failing the whole batch.
 */
export const usageCounters: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('usage_counters')
      .addColumn('service_id', 'text', (column) => column.notNull())
      .addColumn('minute', 'text', (column) => column.notNull())
      .addColumn('counter', 'text', (column) => column.notNull())
      .addColumn('value', 'integer', (column) => column.notNull())
      .addPrimaryKeyConstraint('usage_counters_pk', ['service_id', 'minute', 'counter'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('usage_counters').execute();
  },
};
