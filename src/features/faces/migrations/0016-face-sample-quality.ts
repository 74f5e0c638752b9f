import type { Kysely, Migration } from 'kysely';

/**
 * Whether a registered face came from a weak photo (faces/face-quality.ts: small, soft or turned,
 * taken with a warning): such a sample counts only for a person with no good one. The samples
 * before it passed a stricter check, so they are good (0).
 */
export const faceSampleQuality: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('face_samples').addColumn('weak', 'integer', (column) => column.notNull().defaultTo(0)).execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('face_samples').dropColumn('weak').execute();
  },
};
