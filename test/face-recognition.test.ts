import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { accountDomain } from '../src/accounts/account-domain.js';
import { FaceGallery } from '../src/faces/face-gallery.js';
import { DEFAULT_FACE_MATCH_THRESHOLD, faceSimilarity } from '../src/faces/face-similarity.js';
import { type FaceDescriber, loadFaceDescriber } from '../src/models/face-describer.js';
import { loadEmbeddedFaceDetector, tryModelFiles } from '../src/models/load-models.js';
import type { Detector } from '../src/models/types.js';
import { type Database, openDatabase } from '../src/store/database.js';
import { TASK_DESCRIPTIONS } from '../src/tasks/index.js';
import { decodeImage } from '../src/vision/decode.js';
import type { RgbImage } from '../src/vision/image.js';
import type { ScratchStore } from '../scripts/lib/local-server.js';
import { detectOnce } from './support/detect-once.js';
import { databaseSettingsOf, SQLITE, TEST_SECRET } from './support/engines.js';
import { cropPath, faceModelPath, FACES_DIR, GROUP_PHOTOS } from './support/faces.js';

const PEOPLE = fs
  .readdirSync(FACES_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'wider-val')
  .map((entry) => entry.name)
  .sort();

const decode = async (file: string) => decodeImage(fs.readFileSync(file), { maxPixels: 40e6 });
const wholeImage = (image: RgbImage) => ({ left: 0, top: 0, right: image.width, bottom: image.height });

interface Tally {
  correct: number;
  wrong: number;
  unknown: number;
}

/**
 * Recognition on ../shared/eval/faces as README "Face recognition" reports it: register crops
 * 1–2 (or 1) of each person in a real gallery (SQLite), recognise crops 3–5 and the group photos'
 * faces (found by UltraFace RFB-640, and by the embedded BlazeFace), at the default threshold.
 */
describe('face recognition (dlib ResNet descriptors, a FaceGallery, ../shared/eval/faces)', function () {
  this.timeout(300_000);
  let describer: FaceDescriber;
  let detectors: Record<'ultraface-rfb-640' | 'blazeface', Detector>;
  let store: ScratchStore;
  let db: Database;
  let gallery: FaceGallery;
  let serviceId: string;
  /** Descriptors of every crop: person → crops 1–5. */
  const crops = new Map<string, Float32Array[]>();

  before(async () => {
    describer = await loadFaceDescriber(() => {});
    const [load] = await tryModelFiles({ modelPaths: [faceModelPath('ultraface-rfb-640')], modelsDir: undefined }, { threads: 2, concurrency: 1, nmsIou: 0.3 }, true);
    if ('refused' in load) throw load.refused;
    detectors = { 'ultraface-rfb-640': load.detector, blazeface: await loadEmbeddedFaceDetector(() => {}) };
    for (const person of PEOPLE) {
      const descriptors: Float32Array[] = [];
      for (let index = 1; index <= 5; index++) {
        const image = await decode(cropPath(person, index));
        descriptors.push(await describer.describe(image, wholeImage(image)));
      }
      crops.set(person, descriptors);
    }
    store = await SQLITE.scratch();
    db = await openDatabase(databaseSettingsOf(store));
  });
  after(async () => {
    await describer.dispose();
    await Promise.all(Object.values(detectors).map((detector) => detector.dispose()));
    await db.destroy();
    await store.remove();
  });
  beforeEach(async () => {
    const domain = accountDomain(db, TEST_SECRET, { serviceTypes: TASK_DESCRIPTIONS.types, modelNames: ['centernet'] });
    const account = await domain.accounts.createAccount(`${crypto.randomUUID()}@example.com`, 'a long passphrase');
    serviceId = (await domain.services.create(account.id, { name: 'door' })).service.id;
    gallery = new FaceGallery(db, TEST_SECRET);
  });

  const register = async (photos: number) => {
    for (const person of PEOPLE) await gallery.register(serviceId, person, crops.get(person)!.slice(0, photos));
  };

  it('describes a face as a unit-length 128-value descriptor, the same face alike every time', async () => {
    expect(describer.size).to.equal(128);
    const image = await decode(cropPath('penny', 1));
    const [first, again] = [await describer.describe(image, wholeImage(image)), await describer.describe(image, wholeImage(image))];
    expect(first).to.have.length(128);
    expect(Math.hypot(...first)).to.be.closeTo(1, 1e-5);
    expect(faceSimilarity(first, again)).to.be.closeTo(1, 1e-6);
    // A box reaching past the image's edges is described from the part inside it; one wholly outside is refused.
    const overhanging = await describer.describe(image, { left: -20, top: -20, right: 130, bottom: 140 });
    expect(faceSimilarity(first, overhanging)).to.be.above(DEFAULT_FACE_MATCH_THRESHOLD);
    const outside = await describer.describe(image, { left: 200, top: 0, right: 260, bottom: 60 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(outside).to.be.instanceOf(RangeError);
  });

  it('one or two crops registered per person: every other crop named right, none wrong, same and different people apart', async () => {
    const same: number[] = [];
    const different: number[] = [];
    for (const person of PEOPLE) {
      for (const other of PEOPLE) {
        for (const a of crops.get(person)!.slice(0, 2)) for (const b of crops.get(other)!.slice(2)) (person === other ? same : different).push(faceSimilarity(a, b));
      }
    }
    // Measured: same person 0.78–0.89 (median 0.85), different people 0.66–0.80 (median 0.72).
    expect(median(same)).to.be.above(DEFAULT_FACE_MATCH_THRESHOLD);
    expect(median(different)).to.be.below(DEFAULT_FACE_MATCH_THRESHOLD);
    for (const registered of [1, 2]) {
      await register(registered);
      const matcher = await gallery.matcher(serviceId);
      const tally: Tally = { correct: 0, wrong: 0, unknown: 0 };
      for (const person of PEOPLE) {
        for (const descriptor of crops.get(person)!.slice(2)) count(tally, matcher.match(descriptor)?.userid, person);
      }
      // Measured: 24 of 24 right with either, none wrong.
      expect(tally, `${registered} registered`).to.deep.equal({ correct: PEOPLE.length * 3, wrong: 0, unknown: 0 });
      for (const person of PEOPLE) await gallery.delete(serviceId, person);
    }
  });

  for (const detectorName of ['ultraface-rfb-640', 'blazeface'] as const) {
    it(`names the cast in the group photos from two grey crops each, as a person sees them (faces found by ${detectorName})`, async () => {
      await register(2);
      const matcher = await gallery.matcher(serviceId);
      const tally: Tally = { correct: 0, wrong: 0, unknown: 0 };
      const named: Record<string, (string | undefined)[]> = {};
      for (const [photo, people] of Object.entries(GROUP_PHOTOS)) {
        const image = await decode(path.join(FACES_DIR, photo));
        const { detections } = await detectOnce(detectors[detectorName], image, { minScore: 0.5, maxDetections: 100 });
        const faces = detections.sort((a, b) => a.box.left - b.box.left);
        expect(faces, photo).to.have.length(people.length);
        named[photo] = [];
        for (const [index, face] of faces.entries()) {
          const userid = matcher.match(await describer.describe(image, face.box))?.userid;
          named[photo].push(userid);
          count(tally, userid, people[index] ?? undefined);
        }
      }
      // Measured at 0.78, of the 22 cast faces: from UltraFace's boxes 20 named right, from BlazeFace's 19;
      // 1 wrong with either: bbt2 is the hard one, Leonard and Sheldon near profile (Leonard unknown,
      // Sheldon named Raj); the stranger at its edge is unknown. With BlazeFace Leonard in bbt1 is unknown too.
      expect(tally.correct, JSON.stringify(named)).to.be.at.least(18);
      expect(tally.wrong, JSON.stringify(named)).to.be.at.most(2);
      for (const photo of ['bbt3.jpg', 'bbt4.jpg', 'bbt5.jpg']) expect(named[photo], photo).to.deep.equal(GROUP_PHOTOS[photo]);
    });
  }
});

function count(tally: Tally, named: string | undefined, truth: string | undefined): void {
  if (named === undefined) tally.unknown++;
  else if (named === truth) tally.correct++;
  else tally.wrong++;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
