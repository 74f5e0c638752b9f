import type { Kysely, Migration } from 'kysely';

/**
 * What each service remembers — its gallery of people, its kept unknown faces, its known plates —
 * is held in memory by every replica (store/memory-versions.ts): one version per service and
 * memory, raised in the transaction of every write to it, read by each call to tell whether what a
 * replica holds is still current. No row: nothing was written since this version (version 0).
 */
export const memoryVersions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('memory_versions')
      .addColumn('service_id', 'text', (column) => column.notNull().references('services.id').onDelete('cascade'))
      .addColumn('memory', 'text', (column) => column.notNull())
      .addColumn('version', 'integer', (column) => column.notNull())
      .addPrimaryKeyConstraint('memory_versions_service_memory', ['service_id', 'memory'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('memory_versions').execute();
  },
};
