import { expect } from 'chai';
import type { Migration } from 'kysely';
import { faces } from '../src/features/faces/index.js';
import { SCHEMA } from '../src/features/index.js';
import { KnownPlateList } from '../src/features/plates/known-plate-list.js';
import { plates } from '../src/features/plates/index.js';
import { dialectFor, openDatabase } from '../src/store/database.js';
import { Kysely, Migrator } from '../src/store/kysely.js';
import { Schema } from '../src/store/schema.js';
import type { Tables } from '../src/store/tables.js';
import type { ScratchStore } from '../scripts/lib/local-server.js';
import { databaseSettingsOf, describeEachEngine } from './support/engines.js';

/** The rows of `kysely_migration` a database of detectd 0.1.0 has, in order: what every database that ran them recorded. */
const SHIPPED = [
  '0001-accounts-services-keys',
  '0002-api-key-ciphertext',
  '0003-console-sessions',
  '0004-usage-counters',
  '0005-stream-tokens',
  '0006-service-limits-and-sign-up',
  '0007-keyless-address-ranges',
  '0008-account-disabled',
  '0009-face-galleries',
  '0010-deepstack-prediction-cap',
  '0011-face-userid-keys-and-descriptor-kinds',
  '0012-sign-in-failure-email',
  '0013-unknown-faces',
  '0014-face-negatives',
  '0015-known-plates',
  '0016-face-sample-quality',
  '0017-memory-versions',
  '0018-face-similarity-scale',
  '0019-states',
  '0020-state-example-embedders',
];

const NOTHING: Migration = { up: async () => undefined };

describe('migrations of the store and of the features, in one order', () => {
  it('keeps every shipped name, in its place, whichever folder its file moved to (the plates\' known plates: features/plates/; the faces\' six: features/faces/)', () => {
    expect(SCHEMA.migrationNames.slice(0, SHIPPED.length)).to.deep.equal(SHIPPED);
    expect(Object.keys(SCHEMA.migrations)).to.deep.equal(SCHEMA.migrationNames);
    expect(SCHEMA.migrations['0015-known-plates']).to.equal(plates.migrations?.['0015-known-plates']);
    expect(new Schema([]).migrationNames).not.to.include('0015-known-plates');
    const faceNames = ['0009-face-galleries', '0011-face-userid-keys-and-descriptor-kinds', '0013-unknown-faces', '0014-face-negatives', '0016-face-sample-quality', '0018-face-similarity-scale'];
    expect(Object.keys(faces.migrations ?? {})).to.deep.equal(faceNames);
    for (const name of faceNames) expect(SCHEMA.migrations[name], name).to.equal(faces.migrations?.[name]);
    expect(new Schema([]).migrationNames).to.include('0017-memory-versions').and.not.to.include('0009-face-galleries');
    expect(new Schema([]).tables).not.to.include('face_people');
    expect(SCHEMA.tables).to.include.members([...(faces.tables ?? [])]);
  });

  it('refuses a number taken twice, naming both migrations, and a name that is not a number and words', () => {
    expect(() => new Schema([{ migrations: { '0015-known-plates': NOTHING } }, { migrations: { '0015-regions': NOTHING } }])).to.throw('migrations 0015-known-plates and 0015-regions have the same number');
    expect(() => new Schema([{ migrations: { '0003-stream-regions': NOTHING } }])).to.throw('migrations 0003-console-sessions and 0003-stream-regions have the same number');
    expect(() => new Schema([{ migrations: { '19-regions': NOTHING } }])).to.throw('migration 19-regions: its name must be');
  });
});

describeEachEngine('a database migrated before the plates were a feature', (engine) => {
  let store: ScratchStore;
  beforeEach(async () => {
    store = await engine.scratch();
  });
  afterEach(async () => store.remove());

  it('gets the plates\' 0015 and the store\'s later migrations, in order, and its known plates work; opened again, nothing runs', async () => {
    const before = new Kysely<Tables>({ dialect: await dialectFor(databaseSettingsOf(store)) });
    expect((await new Migrator({ db: before, provider: SCHEMA.provider }).migrateTo('0014-face-negatives')).error).to.equal(undefined);
    await before.insertInto('accounts').values({ id: 'a0000000-0000-4000-8000-000000000000', email: 'old@example.com', password_hash: 'x', created_at: '2026-01-01T00:00:00.000Z' }).execute();
    await before
      .insertInto('services')
      .values({ id: 'b0000000-0000-4000-8000-000000000000', account_id: 'a0000000-0000-4000-8000-000000000000', name: 'gate', type: 'license-plate', model: null, created_at: '2026-01-01T00:00:00.000Z', disabled_at: null })
      .execute();
    await before.destroy();

    const applied: string[][] = [];
    const db = await openDatabase(databaseSettingsOf(store), SCHEMA, { applied: (names) => applied.push([...names]) });
    try {
      expect(applied).to.deep.equal([SHIPPED.slice(SHIPPED.indexOf('0015-known-plates'))]);
      const known = new KnownPlateList(db);
      await known.add('b0000000-0000-4000-8000-000000000000', [{ plate: 'DG2Z6V', name: 'Amy' }]);
      expect((await known.list('b0000000-0000-4000-8000-000000000000')).map(({ plate, name }) => ({ plate, name }))).to.deep.equal([{ plate: 'DG2Z6V', name: 'Amy' }]);
    } finally {
      await db.destroy();
    }
    const again = await openDatabase(databaseSettingsOf(store), SCHEMA, { applied: (names) => applied.push([...names]) });
    await again.destroy();
    expect(applied[1]).to.deep.equal([]);
  });
});
