import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { confidenceOf, rawScoreFor } from '../src/models/families/faces/face-family.js';
import { FACE_FAMILIES } from '../src/models/families/index.js';
import { EMBEDDED_FACE_MODEL_PATH } from '../src/models/embedded-model.js';
import { loadEmbeddedFaceDetector, loadModels, tryModelFiles } from '../src/models/load-models.js';
import { type Detection, type Detector, isDetector } from '../src/models/types.js';
import { decodeImage } from '../src/vision/decode.js';
import { evaluateFaceModels } from '../scripts/face-eval.js';
import { bandAveragePrecision, HEIGHT_BANDS, type WiderImage } from '../scripts/wider-face-ap.js';
import { detectOnce } from './support/detect-once.js';
import { cropPath, faceModelPath, FACES_DIR, GROUP_PHOTOS, WIDER_VAL_DIR } from './support/faces.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';

const SETTINGS = { threads: 2, concurrency: 1, nmsIou: 0.7 };
/** The face task's first step: a face detector. */
const FACES = { role: 'detector', kind: 'faces' } as const;
const PEOPLE = ['amy', 'bernadette', 'howard', 'leonard', 'penny', 'raj', 'sheldon', 'stuart'];

async function loadFaceFile(file: string): Promise<Detector> {
  const [load] = await tryModelFiles({ modelPaths: [file], modelsDir: undefined }, SETTINGS, true);
  if ('refused' in load) throw load.refused;
  if (!isDetector(load.model)) throw new Error(`${file} is not a detector`);
  return load.model;
}

/** The faces found at confidence ≥ 0.5 (what DeepStack clients send), left to right. */
async function facesIn(detector: Detector, file: string): Promise<Detection[]> {
  const image = await decodeImage(fs.readFileSync(file), { maxPixels: 40e6 });
  const { detections } = await detectOnce(detector, image, { minScore: 0.5, maxDetections: 100 });
  return detections.sort((a, b) => a.box.left - b.box.left);
}

/** The five landmarks lie as on a face: inside (or at the edge of) the box, eyes left to right above the nose, the nose above the mouth corners. */
function expectFaceLandmarks(face: Detection, where: string): void {
  const { box, landmarks } = face;
  expect(landmarks, where).to.have.length(5);
  const [leftEye, rightEye, nose, leftMouth, rightMouth] = landmarks!;
  const margin = 0.15 * (box.bottom - box.top);
  for (const point of landmarks!) {
    expect(point.x, `${where} landmark x`).to.be.within(box.left - margin, box.right + margin);
    expect(point.y, `${where} landmark y`).to.be.within(box.top - margin, box.bottom + margin);
  }
  expect(leftEye.x, where).to.be.below(rightEye.x);
  expect(leftMouth.x, where).to.be.below(rightMouth.x);
  expect(Math.max(leftEye.y, rightEye.y), where).to.be.below(nose.y);
  expect(nose.y, where).to.be.below(Math.max(leftMouth.y, rightMouth.y));
}

describe('face detectors', () => {
  const models = [
    { name: 'yunet-n', file: EMBEDDED_FACE_MODEL_PATH, family: 'yunet', landmarks: true },
    { name: 'yunet-s', file: faceModelPath('yunet-s'), family: 'yunet', landmarks: true },
    { name: 'retinaface-mnet025', file: faceModelPath('retinaface-mnet025'), family: 'retinaface', landmarks: true },
    { name: 'ultraface-rfb-640', file: faceModelPath('ultraface-rfb-640'), family: 'ultraface', landmarks: false },
    { name: 'ultraface-rfb-320', file: faceModelPath('ultraface-rfb-320'), family: 'ultraface', landmarks: false },
  ];
  for (const model of models) {
    describe(model.name, () => {
      let detector: Detector;
      before(async () => (detector = await loadFaceFile(model.file)));
      after(() => detector.dispose());

      it(`is told a face detector of the ${model.family} family by its outputs or configuration, faces with parent "face"`, () => {
        expect(detector).to.deep.include({ name: model.name, kind: 'faces', family: model.family, labels: ['face'], parents: ['face'] });
      });

      it('finds every face a person sees in the group photos and nothing else at 0.5, each box about a face in size', async () => {
        for (const [photo, people] of Object.entries(GROUP_PHOTOS)) {
          const faces = await facesIn(detector, path.join(FACES_DIR, photo));
          expect(faces, `${model.name} on ${photo}`).to.have.length(people.length);
          for (const [index, face] of faces.entries()) {
            const height = face.box.bottom - face.box.top;
            // Faces in these photos are 40–140 px tall.
            expect(height, `${photo} face ${index} height`).to.be.within(35, 170);
            expect((face.box.right - face.box.left) / height, `${photo} face ${index} aspect`).to.be.within(0.55, 1.15);
            if (model.landmarks) expectFaceLandmarks(face, `${photo} face ${index}`);
            else expect(face.landmarks).to.equal(undefined);
          }
        }
      });
    });
  }

  describe('the embedded YuNet-n (assets/models, no configuration)', () => {
    let detector: Detector;
    before(async () => (detector = await loadEmbeddedFaceDetector(SETTINGS, () => {})));
    after(() => detector.dispose());

    it('is served by ONNX Runtime under its file name, answering to the former embedded model\'s name too', () => {
      expect(detector).to.deep.include({ name: 'yunet-n', kind: 'faces', family: 'yunet', runtime: 'onnxruntime-node', aliases: ['blazeface'] });
    });

    it('finds exactly one face in each tight crop of a face, with its landmarks', async () => {
      for (const person of PEOPLE) {
        for (let index = 1; index <= 5; index++) {
          const faces = await facesIn(detector, cropPath(person, index));
          expect(faces, `${person}${index}`).to.have.length(1);
          expectFaceLandmarks(faces[0], `${person}${index}`);
        }
      }
    });

    it('finds one face in a portrait, however large the face (a face filling a 1200 px photo included)', async () => {
      const photo = await decodeImage(fs.readFileSync(path.join(FACES_DIR, 'bbt3.jpg')), { maxPixels: 40e6 });
      const [, howard] = (await detectOnce(detector, photo, { minScore: 0.5, maxDetections: 100 })).detections.sort((a, b) => a.box.left - b.box.left);
      // Howard's head and shoulders, cut out and enlarged so that his face is 300, 600 and 900 px tall.
      const { box } = howard;
      const height = box.bottom - box.top;
      const sharp = (await import('sharp')).default;
      for (const faceSide of [300, 600, 900]) {
        const left = Math.max(0, Math.round(box.left - 0.6 * height));
        const top = Math.max(0, Math.round(box.top - 0.5 * height));
        const width = Math.min(photo.width - left, Math.round((box.right - box.left) + 1.2 * height));
        const tall = Math.min(photo.height - top, Math.round(2.2 * height));
        const portrait = await sharp(photo.data, { raw: { width: photo.width, height: photo.height, channels: 3 } })
          .extract({ left, top, width, height: tall })
          .resize(Math.round((width * faceSide) / height))
          .raw()
          .toBuffer({ resolveWithObject: true });
        const image = { width: portrait.info.width, height: portrait.info.height, data: portrait.data };
        const faces = (await detectOnce(detector, image, { minScore: 0.5, maxDetections: 100 })).detections;
        expect(faces, `face ${faceSide} px in a ${image.width}×${image.height} portrait`).to.have.length(1);
      }
    });
  });

  it('a registry offers face models to faces and object models to objects, the embedded YuNet-n when no face model is configured', async () => {
    const configured = await loadModels({ modelPaths: [faceModelPath('ultraface-rfb-320'), DEFAULT_TEST_MODEL], modelsDir: undefined }, SETTINGS, () => {}, new Map(), [FACES]);
    try {
      expect(configured.defaultModel.name).to.equal('yolo26n-640-int8');
      expect(configured.defaultOf({ role: 'detector', kind: 'faces' })?.name).to.equal('ultraface-rfb-320');
      expect(configured.ofStep({ role: 'detector', kind: 'objects' }).map((detector) => detector.name)).to.deep.equal(['yolo26n-640-int8']);
      expect(configured.ofStep({ role: 'detector', kind: 'faces' }).map((detector) => detector.name)).to.deep.equal(['ultraface-rfb-320']);
    } finally {
      await configured.dispose();
    }
    const objectsOnly = await loadModels({ modelPaths: [DEFAULT_TEST_MODEL], modelsDir: undefined }, SETTINGS, () => {}, new Map(), [FACES]);
    try {
      expect(objectsOnly.models.map((model) => model.name)).to.deep.equal(['yolo26n-640-int8', 'yunet-n']);
      expect(objectsOnly.find('blazeface')?.name).to.equal('yunet-n');
    } finally {
      await objectsOnly.dispose();
    }
  });
});

describe('face detection confidence (calibrated from each family\'s measured precision)', () => {
  it('maps raw scores onto confidences and back, increasing, 0 and 1 fixed', () => {
    for (const family of FACE_FAMILIES) {
      let previous = -1;
      for (let raw = 0; raw <= 1.0001; raw += 0.01) {
        const confidence = confidenceOf(family.calibration, raw);
        expect(confidence, `${family.name} at ${raw}`).to.be.above(previous);
        expect(rawScoreFor(family.calibration, confidence), `${family.name} round trip at ${raw}`).to.be.closeTo(Math.min(1, raw), 1e-9);
        previous = confidence;
      }
      expect(confidenceOf(family.calibration, 0)).to.equal(0);
      expect(confidenceOf(family.calibration, 1)).to.equal(1);
    }
  });
});

describe('face detection AP on WIDER FACE (../shared/eval/faces/wider-val, docs/faces.md)', () => {
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

  it('the embedded YuNet-n and RetinaFace on the first 20 images stay above floors below their measured AP', async function () {
    this.timeout(300_000);
    const { images, scores } = await evaluateFaceModels(WIDER_VAL_DIR, [faceModelPath('retinaface-mnet025')], 20);
    expect(images).to.equal(20);
    const [yunet, retinaface] = scores;
    expect(yunet.model).to.equal('yunet-n');
    expect(retinaface.model).to.equal('retinaface-mnet025');
    for (const score of [yunet, retinaface]) {
      expect(score.bands['≥ 32 px'].ap, score.model).to.be.at.least(0.8);
      expect(score.bands['≥ 16 px'].ap, score.model).to.be.at.least(0.7);
    }
  });
});
