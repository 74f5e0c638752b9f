import type { Kysely, Migration } from 'kysely';

/**
 * Face recognition galleries (src/faces/): each face service's people, by the `userid` their
 * client registered them under, and each person's face descriptors, encrypted (biometric data).
 * Both go with their service (and a descriptor with its person). A service may set its own
 * match threshold; null is the documented default.
 */
export const faceGalleries: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('face_people')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('service_id', 'text', (column) => column.notNull().references('services.id').onDelete('cascade'))
      .addColumn('userid', 'text', (column) => column.notNull())
      .addColumn('created_at', 'text', (column) => column.notNull())
      .addUniqueConstraint('face_people_service_userid', ['service_id', 'userid'])
      .execute();
    await db.schema
      .createTable('face_samples')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('person_id', 'text', (column) => column.notNull().references('face_people.id').onDelete('cascade'))
      .addColumn('descriptor_ciphertext', 'text', (column) => column.notNull())
      .addColumn('created_at', 'text', (column) => column.notNull())
      .execute();
    await db.schema.createIndex('face_samples_person').on('face_samples').column('person_id').execute();
    await db.schema.alterTable('services').addColumn('face_match_threshold', 'double precision').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('services').dropColumn('face_match_threshold').execute();
    await db.schema.dropTable('face_samples').execute();
    await db.schema.dropTable('face_people').execute();
  },
};
