import type { Kysely, Migration } from 'kysely';

/**
 * Corrections of face recognition (src/faces/face-gallery.ts): "not this person" examples, each a
 * face descriptor attached to a registered person, encrypted as their samples are (biometric data),
 * and gone with the person.
 */
export const faceNegatives: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('face_negatives')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('person_id', 'text', (column) => column.notNull().references('face_people.id').onDelete('cascade'))
      .addColumn('descriptor_ciphertext', 'text', (column) => column.notNull())
      .addColumn('descriptor_kind', 'text', (column) => column.notNull())
      .addColumn('created_at', 'text', (column) => column.notNull())
      .execute();
    await db.schema.createIndex('face_negatives_person').on('face_negatives').column('person_id').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('face_negatives').execute();
  },
};
