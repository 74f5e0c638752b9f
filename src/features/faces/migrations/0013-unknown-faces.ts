import type { Kysely, Migration } from 'kysely';

/**
 * Unknown faces (src/faces/unknown-people.ts): a face service may keep the faces it could not
 * name, grouped into unknown people, so that its owner can name them later. Off for every service
 * until its owner turns it on (faces of people who did not consent are kept only then), with a
 * retention period and a cap. Descriptors and thumbnails are biometric data, encrypted like
 * `face_samples`; everything goes with its service, and a face with its group.
 */
export const unknownFaces: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('services')
      .addColumn('remember_unknown_faces', 'integer', (column) => column.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('services').addColumn('unknown_faces_retention_days', 'integer', (column) => column.notNull().defaultTo(30)).execute();
    await db.schema.alterTable('services').addColumn('unknown_faces_max', 'integer', (column) => column.notNull().defaultTo(1000)).execute();
    await db.schema
      .createTable('unknown_groups')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('service_id', 'text', (column) => column.notNull().references('services.id').onDelete('cascade'))
      .addColumn('first_seen', 'text', (column) => column.notNull())
      .addColumn('last_seen', 'text', (column) => column.notNull())
      .execute();
    await db.schema.createIndex('unknown_groups_service').on('unknown_groups').column('service_id').execute();
    await db.schema
      .createTable('unknown_faces')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('group_id', 'text', (column) => column.notNull().references('unknown_groups.id').onDelete('cascade'))
      .addColumn('service_id', 'text', (column) => column.notNull().references('services.id').onDelete('cascade'))
      .addColumn('descriptor_ciphertext', 'text', (column) => column.notNull())
      .addColumn('descriptor_kind', 'text', (column) => column.notNull())
      .addColumn('thumbnail_ciphertext', 'text', (column) => column.notNull())
      .addColumn('seen_at', 'text', (column) => column.notNull())
      .addColumn('frame_id', 'text')
      .addColumn('source_id', 'text')
      .addColumn('face_height', 'integer', (column) => column.notNull())
      .addColumn('confidence', 'double precision', (column) => column.notNull())
      .execute();
    await db.schema.createIndex('unknown_faces_group').on('unknown_faces').column('group_id').execute();
    await db.schema.createIndex('unknown_faces_service_seen').on('unknown_faces').columns(['service_id', 'seen_at']).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('unknown_faces').execute();
    await db.schema.dropTable('unknown_groups').execute();
    await db.schema.alterTable('services').dropColumn('unknown_faces_max').execute();
    await db.schema.alterTable('services').dropColumn('unknown_faces_retention_days').execute();
    await db.schema.alterTable('services').dropColumn('remember_unknown_faces').execute();
  },
};
