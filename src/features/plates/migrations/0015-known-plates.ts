import type { Kysely, Migration } from 'kysely';

/**
 * Known plates (known-plate-list.ts): each licence-plate service's list of plates with a name each, the
 * plate as written and its match key (plate-match.ts), unique per service; they go with
 * their service. A service may set its own match distance; null is the documented default.
 */
export const knownPlates: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('known_plates')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('service_id', 'text', (column) => column.notNull().references('services.id').onDelete('cascade'))
      .addColumn('plate', 'text', (column) => column.notNull())
      .addColumn('plate_key', 'text', (column) => column.notNull())
      .addColumn('name', 'text', (column) => column.notNull())
      .addColumn('created_at', 'text', (column) => column.notNull())
      .addUniqueConstraint('known_plates_service_plate_key', ['service_id', 'plate_key'])
      .execute();
    await db.schema.alterTable('services').addColumn('known_plate_distance', 'integer').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('services').dropColumn('known_plate_distance').execute();
    await db.schema.dropTable('known_plates').execute();
  },
};
