import { expect } from 'chai';
import { DEFAULT_FACE_MATCH_THRESHOLD, internalSimilarity, reportedSimilarity } from '../src/features/faces/gallery/face-similarity.js';
import { Kysely, Migrator } from '../src/store/kysely.js';
import { dialectFor, openDatabase } from '../src/store/database.js';
import type { Tables } from '../src/store/tables.js';
import type { ScratchStore } from '../scripts/lib/local-server.js';
import { databaseSettingsOf, describeEachEngine } from './support/engines.js';
import { SCHEMA } from '../src/features/index.js';
import { type FaceTables, faceTables } from '../src/features/faces/gallery/face-tables.js';

describe('the reported similarity scale (DeepStack\u2019s reading: same person above 0.65, two people below 0.55)', () => {
  it('carries the internal similarity along its points: where one person and two meet (0.79–0.81 inside) becomes 0.55–0.65', () => {
    expect([0, 0.79, 0.8, 0.81, 1].map(reportedSimilarity).map((value) => Number(value.toFixed(6)))).to.deep.equal([0, 0.55, 0.6, 0.65, 1]);
    // Two people's median inside (0.72) reads as two people; one person's (0.84) as one.
    expect(reportedSimilarity(0.72)).to.be.below(0.55);
    expect(reportedSimilarity(0.84)).to.be.above(0.65);
    expect(internalSimilarity(DEFAULT_FACE_MATCH_THRESHOLD)).to.be.closeTo(0.8, 1e-9);
  });

  it('only rises, and its inverse gives back the internal similarity', () => {
    let previous = -1;
    for (let internal = 0; internal <= 1; internal += 0.001) {
      const reported = reportedSimilarity(internal);
      expect(reported, `at ${internal}`).to.be.above(previous);
      expect(internalSimilarity(reported)).to.be.closeTo(internal, 1e-9);
      previous = reported;
    }
    expect([reportedSimilarity(-0.2), reportedSimilarity(1.3)]).to.deep.equal([0, 1]);
  });
});

describeEachEngine('migration 0018: stored face match thresholds move to the reported scale', (engine) => {
  let store: ScratchStore;
  beforeEach(async () => {
    store = await engine.scratch();
  });
  afterEach(async () => store.remove());

  it('converts each service\u2019s own threshold to the reported similarity that names the same faces, leaves the default (null) alone, and converts back down', async () => {
    const before = new Kysely<Tables & FaceTables>({ dialect: await dialectFor(databaseSettingsOf(store)) });
    const migrator = new Migrator({ db: before, provider: SCHEMA.provider });
    expect((await migrator.migrateTo('0017-memory-versions')).error).to.equal(undefined);
    await before.insertInto('accounts').values({ id: 'a0000000-0000-4000-8000-000000000000', email: 'old@example.com', password_hash: 'x', created_at: '2026-01-01T00:00:00.000Z' }).execute();
    // Internal thresholds as services set them before: the old default, a lowered one, a stricter one, 1, none.
    const thresholds = { door: 0.8, lenient: 0.75, strict: 0.9, never: 1, default: null };
    for (const [index, [name, threshold]] of Object.entries(thresholds).entries()) {
      await before
        .insertInto('services')
        .values({ id: `b000000${index}-0000-4000-8000-000000000000`, account_id: 'a0000000-0000-4000-8000-000000000000', name, type: 'face-detection', model: null, created_at: '2026-01-01T00:00:00.000Z', disabled_at: null, face_match_threshold: threshold })
        .execute();
    }
    await before.destroy();

    const db = await openDatabase(databaseSettingsOf(store), SCHEMA);
    const stored = async (on: Kysely<Tables & FaceTables>) => Object.fromEntries((await on.selectFrom('services').select(['name', 'face_match_threshold']).execute()).map((row) => [row.name, row.face_match_threshold]));
    try {
      expect(await stored(faceTables(db))).to.deep.equal({ door: 0.6, lenient: 0.5222, strict: 0.8158, never: 1, default: null });
      for (const [name, threshold] of Object.entries(await stored(faceTables(db)))) {
        if (threshold !== null) expect(internalSimilarity(threshold), name).to.be.closeTo(thresholds[name as keyof typeof thresholds]!, 1e-4);
      }
      expect((await new Migrator({ db, provider: SCHEMA.provider }).migrateTo('0017-memory-versions')).error).to.equal(undefined);
      // Down rounds to 4 places too: 0.5222 was 0.75.
      expect(await stored(faceTables(db))).to.deep.equal({ ...thresholds, lenient: 0.7501 });
    } finally {
      await db.destroy();
    }
  });
});
