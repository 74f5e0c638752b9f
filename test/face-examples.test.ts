import { expect } from 'chai';
import { accountDomain } from '../src/accounts/account-domain.js';
import { FaceExamples } from '../src/faces/face-examples.js';
import { FaceGallery, FaceGalleryError } from '../src/faces/face-gallery.js';
import { type Database, openDatabase } from '../src/store/database.js';
import { TASK_DESCRIPTIONS } from '../src/tasks/index.js';
import type { ScratchStore } from '../scripts/lib/local-server.js';
import { databaseSettingsOf, describeEachEngine, TEST_SECRET } from './support/engines.js';

/** A unit-length descriptor along axis `axis`. */
function descriptor(axis: number): Float32Array {
  const values = new Float32Array(128);
  values[axis] = 1;
  return values;
}
const sample = (axis: number) => ({ descriptor: descriptor(axis), weak: false });

/** A gallery example by example and person by person, as CompreFace's clients manage it (faces/face-examples.ts), on both engines. */
describeEachEngine('face examples and subjects in the store', (engine) => {
  let store: ScratchStore;
  let db: Database;
  let gallery: FaceGallery;
  let examples: FaceExamples;
  let serviceId: string;
  let otherServiceId: string;

  beforeEach(async () => {
    store = await engine.scratch();
    db = await openDatabase(databaseSettingsOf(store));
    const domain = accountDomain(db, TEST_SECRET, { serviceTypes: TASK_DESCRIPTIONS.types, modelNames: ['centernet'] });
    const account = await domain.accounts.createAccount('ann@example.com', 'a long passphrase');
    serviceId = (await domain.services.create(account.id, { name: 'door' })).service.id;
    otherServiceId = (await domain.services.create(account.id, { name: 'garden' })).service.id;
    // A second apart, each example: pages are oldest first.
    let tick = 0;
    gallery = new FaceGallery(db, TEST_SECRET, () => new Date(Date.UTC(2026, 0, 1) + tick++ * 1000));
    examples = new FaceExamples(db);
  });
  afterEach(async () => {
    await db.destroy();
    await store.remove();
  });

  it('adds examples with their ids, pages them oldest first, by person in any case, and keeps services apart', async () => {
    const ids = [];
    for (const [index, userid] of ['Amy', 'bob', 'Amy'].entries()) ids.push((await gallery.addExample(serviceId, userid, sample(index))).sampleId);
    await gallery.addExample(otherServiceId, 'carl', sample(9));
    expect(await examples.page(serviceId, { offset: 0, size: 2 })).to.deep.equal({ examples: [{ id: ids[0], userid: 'Amy' }, { id: ids[1], userid: 'bob' }], total: 3 });
    expect(await examples.page(serviceId, { offset: 2, size: 2 })).to.deep.equal({ examples: [{ id: ids[2], userid: 'Amy' }], total: 3 });
    expect((await examples.page(serviceId, { userid: 'amy', offset: 0, size: 10 })).examples.map((example) => example.id)).to.deep.equal([ids[0], ids[2]]);
    expect((await gallery.example(serviceId, ids[1]))?.userid).to.equal('bob');
    expect([...(await gallery.example(serviceId, ids[1]))!.descriptor]).to.deep.equal([...descriptor(1)]);
    expect(await gallery.example(otherServiceId, ids[1])).to.equal(undefined);
  });

  it('forgets examples by id (passing over those of another service) and by person, who stays; the matcher forgets them too', async () => {
    const amy = (await gallery.addExample(serviceId, 'amy', sample(0))).sampleId;
    const bob = (await gallery.addExample(serviceId, 'bob', sample(1))).sampleId;
    const carl = (await gallery.addExample(otherServiceId, 'carl', sample(2))).sampleId;
    expect((await gallery.match(serviceId, descriptor(0)))?.userid).to.equal('amy');
    expect(await examples.forget(serviceId, [amy, carl, 'no-such-id'])).to.deep.equal([{ id: amy, userid: 'amy' }]);
    expect(await gallery.match(serviceId, descriptor(0))).to.equal(undefined);
    expect((await examples.page(otherServiceId, { offset: 0, size: 10 })).total).to.equal(1);
    expect(await examples.forgetAllOf(serviceId, 'BOB')).to.equal(1);
    expect(await examples.people(serviceId)).to.deep.equal(['amy', 'bob']);
    expect((await examples.page(serviceId, { offset: 0, size: 10 })).total).to.equal(0);
    await gallery.addExample(serviceId, 'bob', sample(1));
    expect(await examples.forgetAllOf(serviceId, undefined)).to.equal(1);
    expect(await examples.forget(serviceId, [bob])).to.deep.equal([]);
  });

  it('creates people without examples, refuses one that exists in any case, renames, merges into an existing person, forgets everyone', async () => {
    expect(await examples.create(serviceId, 'Raj')).to.equal(true);
    expect(await examples.create(serviceId, 'raj')).to.equal(false);
    await expectRejection(examples.create(serviceId, '\u0007'));
    const raj = (await gallery.addExample(serviceId, 'Raj', sample(0))).sampleId;
    const kooth = (await gallery.addExample(serviceId, 'Koothrappali', sample(1))).sampleId;
    await gallery.addNegative(serviceId, 'Koothrappali', descriptor(5));
    expect(await examples.rename(serviceId, 'nobody', 'x')).to.equal(false);
    expect(await examples.rename(serviceId, 'raj', 'RAJ')).to.equal(true);
    expect(await examples.people(serviceId)).to.deep.equal(['Koothrappali', 'RAJ']);
    expect(await examples.rename(serviceId, 'koothrappali', 'raj')).to.equal(true);
    const [person] = await gallery.list(serviceId);
    expect(person).to.include({ userid: 'RAJ', samples: 2, negatives: 1 });
    expect((await examples.page(serviceId, { offset: 0, size: 10 })).examples.map((example) => example.id)).to.have.members([raj, kooth]);
    expect((await gallery.match(serviceId, descriptor(1)))?.userid).to.equal('RAJ');
    await gallery.addExample(otherServiceId, 'carl', sample(2));
    expect(await examples.forgetEveryone(serviceId)).to.equal(1);
    expect(await examples.people(serviceId)).to.deep.equal([]);
    expect(await examples.people(otherServiceId)).to.deep.equal(['carl']);
  });
});

async function expectRejection(promise: Promise<unknown>): Promise<void> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).to.be.instanceOf(FaceGalleryError);
}
