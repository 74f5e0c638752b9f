import { expect } from 'chai';
import { accountDomain } from '../src/accounts/account-domain.js';
import { FaceExamples } from '../src/features/faces/gallery/face-examples.js';
import { DESCRIPTOR_KIND, FaceGallery, FaceGalleryError } from '../src/features/faces/gallery/face-gallery.js';
import { DEFAULT_FACE_MATCH_THRESHOLD, FACE_MATCH_MARGIN, faceSimilarity, reportedSimilarity } from '../src/features/faces/gallery/face-similarity.js';
import { type Database, openDatabase } from '../src/store/database.js';
import { SCHEMA, TASK_DESCRIPTIONS } from '../src/features/index.js';
import type { ScratchStore } from '../scripts/lib/local-server.js';
import { databaseSettingsOf, describeEachEngine, TEST_SECRET } from './support/engines.js';
import { goodSamples } from './support/faces.js';
import { faceTables } from '../src/features/faces/gallery/face-tables.js';

/** A unit-length descriptor pointing mostly along axis `axis`, `tilt` towards the next axis. */
function descriptor(axis: number, tilt = 0): Float32Array {
  const values = new Float32Array(128);
  values[axis] = Math.cos(tilt);
  values[(axis + 1) % 128] = Math.sin(tilt);
  return values;
}

describe('face similarity', () => {
  it('is 1 for one descriptor, 0 for opposite ones, and 1 − distance / 2 between', () => {
    expect(faceSimilarity(descriptor(0), descriptor(0))).to.equal(1);
    expect(faceSimilarity(descriptor(0), descriptor(0).map((v) => -v))).to.equal(0);
    // Orthogonal unit vectors are √2 apart.
    expect(faceSimilarity(descriptor(0), descriptor(1))).to.be.closeTo(1 - Math.SQRT2 / 2, 1e-6);
    expect(() => faceSimilarity(descriptor(0), new Float32Array(3))).to.throw(RangeError);
  });
});

describeEachEngine('face galleries in the store', (engine) => {
  let store: ScratchStore;
  let db: Database;
  let gallery: FaceGallery;
  let serviceId: string;
  let otherServiceId: string;

  beforeEach(async () => {
    store = await engine.scratch();
    db = await openDatabase(databaseSettingsOf(store), SCHEMA);
    const domain = accountDomain(db, TEST_SECRET, { serviceTypes: TASK_DESCRIPTIONS.types, modelNames: ['centernet'] });
    const account = await domain.accounts.createAccount('ann@example.com', 'a long passphrase');
    serviceId = (await domain.services.create(account.id, { name: 'door' })).service.id;
    otherServiceId = (await domain.services.create(account.id, { name: 'garden' })).service.id;
    gallery = new FaceGallery(db, TEST_SECRET);
  });
  afterEach(async () => {
    await db.destroy();
    await store.remove();
  });

  it('registers people, adds photos to a known userid, lists them without descriptors, and keeps services apart', async () => {
    expect(await gallery.register(serviceId, ' ann ', goodSamples(descriptor(0)))).to.nested.include({ 'person.name': 'ann', 'person.samples': 1, newPerson: true });
    expect(await gallery.register(serviceId, 'ann', goodSamples(descriptor(0, 0.1), descriptor(0, 0.2)))).to.nested.include({ 'person.name': 'ann', 'person.samples': 3, newPerson: false });
    await gallery.register(serviceId, 'bob', goodSamples(descriptor(10)));
    const listed = await gallery.list(serviceId);
    expect(listed.map(({ name, samples }) => ({ name, samples }))).to.deep.equal([
      { name: 'ann', samples: 3 },
      { name: 'bob', samples: 1 },
    ]);
    expect(listed[0].created).to.match(/^\d{4}-\d\d-\d\dT/);
    expect(await gallery.list(otherServiceId)).to.deep.equal([]);
    expect(await gallery.match(otherServiceId, descriptor(0))).to.equal(undefined);
  });

  it('counts a weak sample (a photo registered with a warning) only while its person has no good one', async () => {
    // A face as like ann's weak sample as her own photos are to her, and far from her good one.
    const nearWeak = descriptor(5, 0.3);
    await gallery.register(serviceId, 'ann', [{ descriptor: descriptor(5), weak: true }]);
    expect((await gallery.match(serviceId, nearWeak))?.name).to.equal('ann');
    expect((await gallery.register(serviceId, 'ann', goodSamples(descriptor(0)))).person).to.include({ samples: 2 });
    expect(await gallery.match(serviceId, nearWeak)).to.equal(undefined);
    expect((await gallery.match(serviceId, descriptor(0, 0.3)))?.name).to.equal('ann');
    // Another person's weak sample still counts while they have nothing better.
    await gallery.register(serviceId, 'bob', [{ descriptor: descriptor(5), weak: true }]);
    expect((await gallery.match(serviceId, nearWeak))?.name).to.equal('bob');
  });

  it('names the most similar person at or above the threshold, and nobody below it', async () => {
    await gallery.register(serviceId, 'ann', goodSamples(descriptor(0)));
    await gallery.register(serviceId, 'bob', goodSamples(descriptor(10)));
    const ann = await gallery.match(serviceId, descriptor(0, 0.3));
    expect(ann?.name).to.equal('ann');
    // On the reported scale, as it leaves the server.
    expect(ann?.similarity).to.be.closeTo(reportedSimilarity(faceSimilarity(descriptor(0), descriptor(0, 0.3))), 1e-6);
    expect(await gallery.match(serviceId, descriptor(50))).to.equal(undefined);
    const matcher = await gallery.matcher(serviceId);
    expect(matcher.threshold).to.equal(DEFAULT_FACE_MATCH_THRESHOLD);
    expect(matcher.nearest(descriptor(50))?.similarity).to.be.below(DEFAULT_FACE_MATCH_THRESHOLD);
  });

  it('rules a person out for a face nearer to one of their "not this person" faces than to their own nearest photo: the next person may win, their own faces stay theirs', async () => {
    // Unit descriptors in one plane, by angle: similarity = 1 − sin(Δ / 2).
    const at = (angle: number) => descriptor(0, angle);
    await gallery.register(serviceId, 'ann', goodSamples(at(0)));
    await gallery.register(serviceId, 'bob', goodSamples(at(0.62)));
    const face = at(0.3);
    // 0.851 like Ann, 0.841 like Bob: within the margin of each other, so nobody.
    expect(await gallery.match(serviceId, face)).to.equal(undefined);
    expect(await gallery.addNegative(serviceId, 'ANN', at(0.35))).to.include({ name: 'ann', samples: 1, negatives: 1 });
    const matcher = await gallery.matcher(serviceId);
    expect(matcher.match(face)?.name, 'Ann ruled out, Bob clears the threshold alone').to.equal('bob');
    expect(matcher.nearest(face)?.name).to.equal('bob');
    expect(matcher.match(at(0.1))?.name, 'nearer to her photo than to the negative').to.equal('ann');
    expect(matcher.match(at(-0.2))?.name).to.equal('ann');
    expect((await gallery.list(serviceId)).map(({ name, negatives }) => [name, negatives])).to.deep.equal([['ann', 1], ['bob', 0]]);
    const error = await gallery.addNegative(serviceId, 'carol', at(1)).catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(FaceGalleryError).and.to.include({ code: 'unknown_person' });
    expect(await gallery.addNegative(otherServiceId, 'ann', at(1)).catch((caught: FaceGalleryError) => caught.code)).to.equal('unknown_person');
    const [row] = await faceTables(db).selectFrom('face_negatives').selectAll().execute();
    expect(row.descriptor_kind).to.equal(DESCRIPTOR_KIND);
    expect(row.descriptor_ciphertext).to.not.contain(Buffer.from(at(0.35).buffer).toString('base64').slice(0, 16));
    await gallery.delete(serviceId, 'ann');
    expect(await faceTables(db).selectFrom('face_negatives').selectAll().execute()).to.deep.equal([]);
  });

  it('uses the service\u2019s own threshold when set, and the default again when cleared', async () => {
    await gallery.register(serviceId, 'ann', goodSamples(descriptor(0)));
    const tilted = descriptor(0, 0.3); // similarity 1 − sin(0.15) ≈ 0.85 inside, 0.72 reported
    await gallery.setThreshold(serviceId, 0.95);
    expect(await gallery.threshold(serviceId)).to.equal(0.95);
    expect(await gallery.match(serviceId, tilted)).to.equal(undefined);
    expect(await gallery.threshold(otherServiceId)).to.equal(DEFAULT_FACE_MATCH_THRESHOLD);
    await gallery.setThreshold(serviceId, null);
    expect((await gallery.match(serviceId, tilted))?.name).to.equal('ann');
    for (const bad of [-0.1, 1.5, Number.NaN]) {
      await expectRejection(gallery.setThreshold(serviceId, bad), FaceGalleryError);
    }
  });

  it('stores descriptors encrypted, and deletes them with their person and with their service', async () => {
    const ann = descriptor(0, 0.25);
    await gallery.register(serviceId, 'ann', goodSamples(ann));
    const row = await faceTables(db).selectFrom('face_samples').selectAll().executeTakeFirstOrThrow();
    expect(row.descriptor_ciphertext).to.match(/^v1\./).and.not.contain(Buffer.from(ann.buffer).toString('base64'));
    // Under another server secret nothing decrypts.
    await expectRejection(new FaceGallery(db, 'another-secret-0123456789-abcdefghijkl').match(serviceId, ann));

    expect(await gallery.delete(serviceId, 'nobody')).to.equal(false);
    expect(await gallery.delete(otherServiceId, 'ann')).to.equal(false);
    expect(await gallery.delete(serviceId, 'ann')).to.equal(true);
    expect(await gallery.list(serviceId)).to.deep.equal([]);
    expect(await faceTables(db).selectFrom('face_samples').selectAll().execute()).to.deep.equal([]);

    await gallery.register(serviceId, 'bob', goodSamples(descriptor(3)));
    await db.deleteFrom('services').where('id', '=', serviceId).execute();
    expect(await faceTables(db).selectFrom('face_people').selectAll().execute()).to.deep.equal([]);
    expect(await faceTables(db).selectFrom('face_samples').selectAll().execute()).to.deep.equal([]);
  });

  it('a person registered through one connection (another replica) is listed and recognised through another at once', async () => {
    const replica = await openDatabase(databaseSettingsOf(store), SCHEMA);
    try {
      const other = new FaceGallery(replica, TEST_SECRET);
      expect(await other.match(serviceId, descriptor(7))).to.equal(undefined);
      await gallery.register(serviceId, 'ann', goodSamples(descriptor(7)));
      expect((await other.list(serviceId)).map((person) => person.name)).to.deep.equal(['ann']);
      expect((await other.match(serviceId, descriptor(7)))?.name).to.equal('ann');
      await other.delete(serviceId, 'ann');
      expect(await gallery.match(serviceId, descriptor(7))).to.equal(undefined);
    } finally {
      await replica.destroy();
    }
  });

  it('holds the gallery it read, reads it again when another connection (replica) writes, and matches against what it holds while the database is away', async () => {
    const replica = await openDatabase(databaseSettingsOf(store), SCHEMA);
    const held = new FaceGallery(replica, TEST_SECRET);
    let away = false;
    try {
      await gallery.register(serviceId, 'ann', goodSamples(descriptor(7)));
      expect((await held.match(serviceId, descriptor(7)))?.name).to.equal('ann');
      // Each write raises the version the holder reads first: a negative, a threshold, a deletion.
      await gallery.addNegative(serviceId, 'ann', descriptor(7, 0.01));
      expect(await held.match(serviceId, descriptor(7, 0.02))).to.equal(undefined);
      await gallery.register(serviceId, 'bob', goodSamples(descriptor(20)));
      await gallery.setThreshold(serviceId, 0.99);
      expect(await held.match(serviceId, descriptor(20, 0.1))).to.equal(undefined);
      await gallery.setThreshold(serviceId, null);
      expect((await held.match(serviceId, descriptor(20, 0.1)))?.name).to.equal('bob');
      await gallery.delete(serviceId, 'bob');
      expect(await held.match(serviceId, descriptor(20, 0.1))).to.equal(undefined);
      await gallery.register(serviceId, 'bob', goodSamples(descriptor(20)));
      expect((await held.matcher(serviceId)).people).to.equal(2);

      await replica.destroy();
      away = true;
      const matcher = await held.matcher(serviceId);
      expect([matcher.people, matcher.match(descriptor(20, 0.1))?.name, matcher.match(descriptor(7, 0.02))]).to.deep.equal([2, 'bob', undefined]);
      // A gallery never read before cannot be matched without the database: its error, not a guess.
      await expectRejection(held.matcher(otherServiceId), Error);
    } finally {
      if (!away) await replica.destroy();
    }
  });

  it('refuses a blank userid, one with any control character (C0, DEL or C1), and a registration without a face', async () => {
    for (const name of ['', '   ', 'a\nb', 'a\u007fb', 'a\u0085b', 'a\u009bb', 'x'.repeat(201)]) {
      await expectRejection(gallery.register(serviceId, name, goodSamples(descriptor(0))), FaceGalleryError);
    }
    await expectRejection(gallery.register(serviceId, 'ann', goodSamples()), FaceGalleryError);
    expect(await gallery.list(serviceId)).to.deep.equal([]);
    // Letters of any script are names, not control characters.
    expect((await gallery.register(serviceId, 'Zoë Ñandú 李', goodSamples(descriptor(0)))).person.name).to.equal('Zoë Ñandú 李');
  });

  it('is one person whatever the case of the userid: a second spelling is refused with the registered one, a deletion in any case removes them', async () => {
    await gallery.register(serviceId, 'Amy', goodSamples(descriptor(0)));
    const refused = await gallery.register(serviceId, 'amy', goodSamples(descriptor(0, 0.1))).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(FaceGalleryError).and.to.include({ code: 'name_case' });
    expect((refused as Error).message).to.contain('"Amy"');
    // Composed and decomposed é are one letter too.
    await gallery.register(serviceId, 'Zo\u00eb', goodSamples(descriptor(5)));
    await expectRejection(gallery.register(serviceId, 'ZOE\u0308', goodSamples(descriptor(5))), FaceGalleryError);
    expect((await gallery.list(serviceId)).map(({ name, samples }) => ({ name, samples }))).to.deep.equal([
      { name: 'Amy', samples: 1 },
      { name: 'Zo\u00eb', samples: 1 },
    ]);
    // The same spelling adds photos; another service has its own "amy".
    expect((await gallery.register(serviceId, 'Amy', goodSamples(descriptor(0, 0.1)))).person.samples).to.equal(2);
    expect((await gallery.register(otherServiceId, 'amy', goodSamples(descriptor(0)))).person.name).to.equal('amy');
    expect(await gallery.delete(serviceId, 'AMY')).to.equal(true);
    expect((await gallery.list(serviceId)).map((person) => person.name)).to.deep.equal(['Zo\u00eb']);
    expect((await gallery.list(otherServiceId)).map((person) => person.name)).to.deep.equal(['amy']);
  });

  it('names nobody when a face is about as like two registered people (within FACE_MATCH_MARGIN, inside)', async () => {
    await gallery.register(serviceId, 'ann', goodSamples(descriptor(0)));
    await gallery.register(serviceId, 'twin', goodSamples(descriptor(0, 0.02)));
    // Halfway between them: both far above the threshold, nearly equal.
    const between = descriptor(0, 0.01);
    const matcher = await gallery.matcher(serviceId);
    expect(matcher.nearest(between)?.similarity).to.be.above(0.99);
    expect(matcher.match(between)).to.equal(undefined);
    // A face clearly nearer one of them is theirs, however alike the other.
    await gallery.delete(serviceId, 'twin');
    await gallery.register(serviceId, 'sister', goodSamples(descriptor(0, 0.25)));
    const nearAnn = descriptor(0, 0.02);
    const margin = faceSimilarity(nearAnn, descriptor(0)) - faceSimilarity(nearAnn, descriptor(0, 0.25));
    expect(margin).to.be.above(FACE_MATCH_MARGIN);
    expect((await gallery.matcher(serviceId)).match(nearAnn)?.name).to.equal('ann');
  });

  it('never matches descriptors an earlier pipeline made, lists them as outdated, and counts who must be registered again', async () => {
    await gallery.register(serviceId, 'ann', goodSamples(descriptor(0)));
    await gallery.register(serviceId, 'bob', goodSamples(descriptor(10)));
    expect(await gallery.peopleToRegisterAgain()).to.equal(0);
    // As the migration marks descriptors stored before aligned recognition.
    await faceTables(db).updateTable('face_samples').set({ descriptor_kind: 'dlib-resnet/square-grey' }).execute();
    expect(await gallery.match(serviceId, descriptor(0))).to.equal(undefined);
    expect((await gallery.list(serviceId)).map(({ name, samples, outdatedSamples }) => ({ name, samples, outdatedSamples }))).to.deep.equal([
      { name: 'ann', samples: 0, outdatedSamples: 1 },
      { name: 'bob', samples: 0, outdatedSamples: 1 },
    ]);
    expect(await gallery.peopleToRegisterAgain()).to.equal(2);
    await gallery.register(serviceId, 'ann', goodSamples(descriptor(0)));
    expect((await gallery.match(serviceId, descriptor(0)))?.name).to.equal('ann');
    expect(await gallery.peopleToRegisterAgain()).to.equal(1);
    expect((await faceTables(db).selectFrom('face_samples').select('descriptor_kind').where('descriptor_kind', '=', DESCRIPTOR_KIND).execute()).length).to.equal(1);
  });

  // CompreFace's examples and subjects (features/faces/gallery/face-examples.ts): a gallery example by example and person by person.
  const example = (axis: number) => goodSamples(descriptor(axis))[0];

  it('adds examples with their ids, pages them oldest first, by person in any case, and keeps services apart', async () => {
    const examples = new FaceExamples(db);
    // A second apart, each example: pages are oldest first.
    let tick = 0;
    const ticking = new FaceGallery(db, TEST_SECRET, () => new Date(Date.UTC(2026, 0, 1) + tick++ * 1000));
    const ids = [];
    for (const [index, name] of ['Amy', 'bob', 'Amy'].entries()) ids.push((await ticking.addExample(serviceId, name, example(index))).sampleId);
    await gallery.addExample(otherServiceId, 'carl', example(9));
    expect(await examples.page(serviceId, { offset: 0, size: 2 })).to.deep.equal({ examples: [{ id: ids[0], name: 'Amy' }, { id: ids[1], name: 'bob' }], total: 3 });
    expect(await examples.page(serviceId, { offset: 2, size: 2 })).to.deep.equal({ examples: [{ id: ids[2], name: 'Amy' }], total: 3 });
    expect((await examples.page(serviceId, { name: 'amy', offset: 0, size: 10 })).examples.map((listed) => listed.id)).to.deep.equal([ids[0], ids[2]]);
    expect((await gallery.example(serviceId, ids[1]))?.name).to.equal('bob');
    expect([...(await gallery.example(serviceId, ids[1]))!.descriptor]).to.deep.equal([...descriptor(1)]);
    expect(await gallery.example(otherServiceId, ids[1])).to.equal(undefined);
  });

  it('forgets examples by id (passing over those of another service) and by person, who stays; the matcher forgets them too', async () => {
    const examples = new FaceExamples(db);
    const amy = (await gallery.addExample(serviceId, 'amy', example(0))).sampleId;
    const bob = (await gallery.addExample(serviceId, 'bob', example(1))).sampleId;
    const carl = (await gallery.addExample(otherServiceId, 'carl', example(2))).sampleId;
    expect((await gallery.match(serviceId, descriptor(0)))?.name).to.equal('amy');
    expect(await examples.forget(serviceId, [amy, carl, 'no-such-id'])).to.deep.equal([{ id: amy, name: 'amy' }]);
    expect(await gallery.match(serviceId, descriptor(0))).to.equal(undefined);
    expect((await examples.page(otherServiceId, { offset: 0, size: 10 })).total).to.equal(1);
    expect(await examples.forgetAllOf(serviceId, 'BOB')).to.equal(1);
    expect(await examples.people(serviceId)).to.deep.equal(['amy', 'bob']);
    expect((await examples.page(serviceId, { offset: 0, size: 10 })).total).to.equal(0);
    await gallery.addExample(serviceId, 'bob', example(1));
    expect(await examples.forgetAllOf(serviceId, undefined)).to.equal(1);
    expect(await examples.forget(serviceId, [bob])).to.deep.equal([]);
  });

  it('creates people without examples, refuses one that exists in any case, renames, merges into an existing person, forgets everyone', async () => {
    const examples = new FaceExamples(db);
    expect(await examples.create(serviceId, 'Raj')).to.equal(true);
    expect(await examples.create(serviceId, 'raj')).to.equal(false);
    await expectRejection(examples.create(serviceId, '\u0007'), FaceGalleryError);
    const raj = (await gallery.addExample(serviceId, 'Raj', example(0))).sampleId;
    const kooth = (await gallery.addExample(serviceId, 'Koothrappali', example(1))).sampleId;
    await gallery.addNegative(serviceId, 'Koothrappali', descriptor(5));
    expect(await examples.rename(serviceId, 'nobody', 'x')).to.equal(false);
    expect(await examples.rename(serviceId, 'raj', 'RAJ')).to.equal(true);
    expect(await examples.people(serviceId)).to.deep.equal(['Koothrappali', 'RAJ']);
    expect(await examples.rename(serviceId, 'koothrappali', 'raj')).to.equal(true);
    const [person] = await gallery.list(serviceId);
    expect(person).to.include({ name: 'RAJ', samples: 2, negatives: 1 });
    expect((await examples.page(serviceId, { offset: 0, size: 10 })).examples.map((listed) => listed.id)).to.have.members([raj, kooth]);
    expect((await gallery.match(serviceId, descriptor(1)))?.name).to.equal('RAJ');
    await gallery.addExample(otherServiceId, 'carl', example(2));
    expect(await examples.forgetEveryone(serviceId)).to.equal(1);
    expect(await examples.people(serviceId)).to.deep.equal([]);
    expect(await examples.people(otherServiceId)).to.deep.equal(['carl']);
  });
});

async function expectRejection(promise: Promise<unknown>, type: new (...args: never[]) => Error = Error): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).to.be.instanceOf(type);
}
