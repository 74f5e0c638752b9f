import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { loadEmbeddedFaceDetector, loadModels, tryModelFiles } from '../src/models/load-models.js';
import type { Detector } from '../src/models/types.js';
import { decodeImage } from '../src/vision/decode.js';
import { evaluateFaceModels } from '../scripts/face-eval.js';
import { bandAveragePrecision, HEIGHT_BANDS, type WiderImage } from '../scripts/wider-face-ap.js';
import { detectOnce } from './support/detect-once.js';
import { faceModelPath, FACES_DIR, GROUP_PHOTOS, WIDER_VAL_DIR } from './support/faces.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';

const SETTINGS = { threads: 2, concurrency: 1, nmsIou: 0.7 };

async function loadFaceFile(name: string): Promise<Detector> {
  const [load] = await tryModelFiles({ modelPaths: [faceModelPath(name)], modelsDir: undefined }, SETTINGS, true);
  if ('refused' in load) throw load.refused;
  return load.detector;
}

/** The faces found at confidence ≥ 0.5, left to right. */
async function facesIn(detector: Detector, photo: string) {
  const image = await decodeImage(fs.readFileSync(path.join(FACES_DIR, photo)), { maxPixels: 40e6 });
  const { detections } = await detectOnce(detector, image, { minScore: 0.5, maxDetections: 100 });
  return detections.sort((a, b) => a.box.left - b.box.left);
}

describe('face detectors', () => {
  for (const [name, width, height] of [
    ['ultraface-rfb-640', 640, 480],
    ['ultraface-rfb-320', 320, 240],
  ] as const) {
    describe(name, () => {
      let detector: Detector;
      before(async () => (detector = await loadFaceFile(name)));
      after(() => detector.dispose());

      it('is recognised as an UltraFace face detector by its outputs, with no configuration', () => {
        expect(detector).to.deep.include({ name, kind: 'faces', family: 'ultraface', labels: ['face'], parents: ['person'], inputSize: { width, height } });
      });

      it('finds every face a person sees in the group photos, each box about a face in size', async () => {
        for (const [photo, people] of Object.entries(GROUP_PHOTOS)) {
          const faces = await facesIn(detector, photo);
          expect(faces, `${name} on ${photo}`).to.have.length(people.length);
          for (const { box } of faces) {
            const [w, h] = [box.right - box.left, box.bottom - box.top];
            // Faces in these photos are 40–140 px tall; UltraFace draws them taller than wide.
            expect(h, `${photo} face height`).to.be.within(40, 160);
            expect(w / h, `${photo} face aspect`).to.be.within(0.6, 1.1);
          }
        }
      });
    });
  }

  describe('the embedded BlazeFace (TF.js, no configuration)', () => {
    let detector: Detector;
    before(async () => (detector = await loadEmbeddedFaceDetector(() => {})));
    after(() => detector.dispose());

    it('finds every face a person sees in the group photos, where UltraFace finds them', async () => {
      const ultraface = await loadFaceFile('ultraface-rfb-320');
      try {
        expect(detector).to.deep.include({ name: 'blazeface', kind: 'faces', labels: ['face'], parents: ['person'] });
        for (const [photo, people] of Object.entries(GROUP_PHOTOS)) {
          const faces = await facesIn(detector, photo);
          expect(faces, `blazeface on ${photo}`).to.have.length(people.length);
          const reference = await facesIn(ultraface, photo);
          // BlazeFace's boxes are square, UltraFace's taller: the same face's centres lie close.
          faces.forEach(({ box }, index) => {
            const other = reference[index].box;
            const size = other.bottom - other.top;
            expect(Math.abs((box.left + box.right) / 2 - (other.left + other.right) / 2), `${photo} face ${index} x`).to.be.below(size / 3);
            expect(Math.abs((box.top + box.bottom) / 2 - (other.top + other.bottom) / 2), `${photo} face ${index} y`).to.be.below(size / 2);
          });
        }
      } finally {
        await ultraface.dispose();
      }
    });
  });

  it('a registry offers face models to faces and object models to objects, the embedded BlazeFace when no face model is configured', async () => {
    const configured = await loadModels({ modelPaths: [faceModelPath('ultraface-rfb-320'), DEFAULT_TEST_MODEL], modelsDir: undefined }, SETTINGS, () => {}, new Map(), { faces: true });
    try {
      expect(configured.defaultModel.name).to.equal('yolo26n-640-int8');
      expect(configured.defaultOf('faces')?.name).to.equal('ultraface-rfb-320');
      expect(configured.ofKind('objects').map((detector) => detector.name)).to.deep.equal(['yolo26n-640-int8']);
      expect(configured.ofKind('faces').map((detector) => detector.name)).to.deep.equal(['ultraface-rfb-320']);
    } finally {
      await configured.dispose();
    }
    const objectsOnly = await loadModels({ modelPaths: [DEFAULT_TEST_MODEL], modelsDir: undefined }, SETTINGS, () => {}, new Map(), { faces: true });
    try {
      expect(objectsOnly.names).to.deep.equal(['yolo26n-640-int8', 'blazeface']);
      expect(objectsOnly.defaultOf('faces')?.kind).to.equal('faces');
    } finally {
      await objectsOnly.dispose();
    }
  });
});

describe('face detection AP on WIDER FACE (../shared/eval/faces/wider-val, README "Faces")', () => {
  it('scores as WIDER does: a face found once counts, invalid and out-of-band faces count neither way', () => {
    const face = (left: number, height: number, invalid = false) => ({ left, top: 0, width: height, height, invalid });
    const box = (left: number, height: number, score: number) => ({ left, top: 0, right: left + height, bottom: height, score });
    const images: WiderImage[] = [{ path: 'a.jpg', faces: [face(0, 100), face(200, 100, true), face(400, 20), face(600, 100)] }];
    const band = HEIGHT_BANDS[0]; // ≥ 64 px
    // Both counted faces found, the invalid and the small one too, a duplicate below them: AP 1.
    const found = [box(0, 100, 0.9), box(600, 100, 0.8), box(200, 100, 0.95), box(400, 20, 0.99), box(2, 100, 0.1)];
    expect(bandAveragePrecision(images, [found], band)).to.deep.equal({ ap: 1, faces: 2 });
    // A confident false positive ahead of them halves the first step's precision.
    const withMiss = [box(800, 100, 0.99), box(0, 100, 0.9), box(600, 100, 0.8)];
    expect(bandAveragePrecision(images, [withMiss], band).ap).to.be.closeTo(2 / 3, 1e-9);
    expect(bandAveragePrecision(images, [[box(0, 100, 0.9)]], band).ap).to.equal(0.5);
  });

  it('UltraFace RFB-640 and the embedded BlazeFace on the first 20 images stay above floors well below their measured AP', async function () {
    this.timeout(300_000);
    const { images, scores } = await evaluateFaceModels(WIDER_VAL_DIR, [faceModelPath('ultraface-rfb-640')], 20);
    expect(images).to.equal(20);
    const [ultraface, blazeface] = scores;
    expect(ultraface.model).to.equal('ultraface-rfb-640');
    expect(blazeface.model).to.equal('blazeface');
    // Measured on these 20 images: RFB-640 0.90 (≥ 32 px), 0.84 (≥ 16 px); BlazeFace 0.78 (≥ 64 px), 0.68 (≥ 32 px).
    expect(ultraface.bands['≥ 32 px'].ap).to.be.at.least(0.8);
    expect(ultraface.bands['≥ 16 px'].ap).to.be.at.least(0.7);
    expect(blazeface.bands['≥ 64 px'].ap).to.be.at.least(0.6);
    expect(blazeface.bands['≥ 32 px'].ap).to.be.at.least(0.5);
  });
});
