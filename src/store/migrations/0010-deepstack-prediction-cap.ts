import type { Kysely, Migration } from 'kysely';

/**
 * A per-service cap on the predictions of a DeepStack / CodeProject.AI answer (for clients such as
 * Frigate, whose plugin fails on a 21st prediction), so that one service can be capped while the
 * others, on the same model, are not. Null, the default, is no cap.
 */
export const deepStackPredictionCap: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('services').addColumn('deepstack_max_predictions', 'integer').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('services').dropColumn('deepstack_max_predictions').execute();
  },
};
