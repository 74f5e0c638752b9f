import type { Kysely, Migration } from 'kysely';
import { sql } from '../../../store/kysely.js';

/** The descriptors stored before this migration: dlib's ResNet on a grey square around the detector's box, unaligned. */
const UNALIGNED_GREY = 'dlib-resnet/square-grey';

/**
 * Two changes to the face galleries (src/faces/face-gallery.ts):
 * - `face_people.userid_key`: the userid with case and Unicode composition folded, unique within a
 *   service, so that "Amy" and "amy" can never become two people. People registered before under
 *   such names keep their own key (the first by creation, the others made unique by their id).
 * - `face_samples.descriptor_kind`: which pipeline made a descriptor. Descriptors of different
 *   pipelines are not comparable, so the matcher uses the current kind only; the rows stored
 *   before are marked as the old, unaligned kind, and their people must be registered again.
 */
export const faceUseridKeysAndDescriptorKinds: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('face_people').addColumn('userid_key', 'text').execute();
    const people = await db.selectFrom('face_people').select(['id', 'service_id', 'userid', 'created_at']).orderBy('created_at').orderBy('id').execute();
    const taken = new Set<string>();
    for (const person of people as { id: string; service_id: string; userid: string }[]) {
      const folded = person.userid.normalize('NFC').toLowerCase();
      const key = taken.has(`${person.service_id}\n${folded}`) ? `${folded}\n${person.id}` : folded;
      taken.add(`${person.service_id}\n${key}`);
      await db.updateTable('face_people').set({ userid_key: key }).where('id', '=', person.id).execute();
    }
    await db.schema.createIndex('face_people_service_userid_key').on('face_people').columns(['service_id', 'userid_key']).unique().execute();
    await db.schema.alterTable('face_samples').addColumn('descriptor_kind', 'text', (column) => column.notNull().defaultTo(sql.lit(UNALIGNED_GREY))).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('face_samples').dropColumn('descriptor_kind').execute();
    await db.schema.dropIndex('face_people_service_userid_key').execute();
    await db.schema.alterTable('face_people').dropColumn('userid_key').execute();
  },
};
