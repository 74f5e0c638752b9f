import type { Kysely, Migration } from 'kysely';

/**
 * States by example (src/features/states/): each states service's named regions per source
 * (camera), a box and optionally a polygon within it, unique by name per source; and each region's
 * taught examples, a state and the region's embedding in that frame (with a thumbnail for people).
 * They go with their service, and the examples with their region.
 */
export const states: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('state_regions')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('service_id', 'text', (column) => column.notNull().references('services.id').onDelete('cascade'))
      .addColumn('source_id', 'text', (column) => column.notNull())
      .addColumn('name', 'text', (column) => column.notNull())
      .addColumn('box', 'text', (column) => column.notNull())
      .addColumn('polygon', 'text')
      .addColumn('created_at', 'text', (column) => column.notNull())
      .addUniqueConstraint('state_regions_service_source_name', ['service_id', 'source_id', 'name'])
      .execute();
    await db.schema
      .createTable('state_examples')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('region_id', 'text', (column) => column.notNull().references('state_regions.id').onDelete('cascade'))
      .addColumn('state', 'text', (column) => column.notNull())
      .addColumn('embedding', 'text', (column) => column.notNull())
      .addColumn('thumbnail', 'text', (column) => column.notNull())
      .addColumn('created_at', 'text', (column) => column.notNull())
      .execute();
    await db.schema.createIndex('state_examples_region').on('state_examples').column('region_id').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('state_examples').execute();
    await db.schema.dropTable('state_regions').execute();
  },
};
