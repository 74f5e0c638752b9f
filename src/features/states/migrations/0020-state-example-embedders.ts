import type { Kysely, Migration } from 'kysely';

/**
 * Each state example records the embedder that embedded it (its name, input size and vector length:
 * state-embedder.ts): a region is judged only against examples of the embedder that answers now, since
 * two embedders' vectors are not comparable. Examples kept before this migration record none (null),
 * and are of no embedder that answers: their states are taught again (docs/states.md).
 */
export const stateExampleEmbedders: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('state_examples').addColumn('embedder', 'text').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('state_examples').dropColumn('embedder').execute();
  },
};
