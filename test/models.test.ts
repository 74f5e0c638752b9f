import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { COCO_LABELS } from '../src/models/coco-categories.js';
import { loadOnnxDetector } from '../src/models/runtimes/onnx/onnx-detector.js';
import { detectOnce } from './support/detect-once.js';
import { loadEmbeddedDetector } from '../src/models/load-models.js';
import type { Detector } from '../src/models/types.js';
import { decodeImage } from '../src/vision/decode.js';
import type { Box } from '../src/vision/image.js';
import { DOG_PHOTO_OBJECTS, iou } from './support/images.js';
import { MODELS_DIR, modelPath, photoPath } from './support/paths.js';

const SETTINGS = { threads: 2, concurrency: 1, nmsIou: 0.7 };
/** Ultralytics' default confidence for predictions. */
const MIN_SCORE = 0.25;

async function detectionsIn(detector: Detector, photo: string): Promise<{ label: string; score: number; box: Box }[]> {
  const image = await decodeImage(fs.readFileSync(photoPath(photo)), { maxPixels: 40e6 });
  const { detections } = await detectOnce(detector, image, { minScore: MIN_SCORE, maxDetections: 300 });
  return detections.map((detection) => ({ label: detector.labels[detection.classIndex], score: detection.score, box: detection.box }));
}

const labelsFound = async (detector: Detector, photo: string) => (await detectionsIn(detector, photo)).map((found) => found.label);

/**
 * The dog photo's dog, bicycle and truck, each found (its best box) where it is; nothing else in
 * the photo is found with confidence (a car is the truck seen by a weaker model).
 */
async function expectDogPhotoObjects(detector: Detector): Promise<void> {
  const found = await detectionsIn(detector, 'dog.jpg');
  for (const [label, reference] of Object.entries(DOG_PHOTO_OBJECTS)) {
    const best = found.find((detection) => detection.label === label);
    expect(best, `${detector.name}: ${label} found`).to.not.equal(undefined);
    expect(iou(best!.box, reference), `${detector.name}: ${label} box ${JSON.stringify(best!.box)}`).to.be.at.least(0.75);
  }
  const confident = found.filter((detection) => detection.score >= 0.5).map((detection) => detection.label);
  expect(confident.filter((label) => !['dog', 'bicycle', 'truck', 'car'].includes(label)), `${detector.name}: confident labels`).to.deep.equal([]);
}

/** Family and input side of each model in ../shared/models: a new model there needs a row here. */
const EXPECTED_FAMILIES: Record<string, [family: string, inputSize: number]> = {
  'yolo26n-640-int8': ['end-to-end', 640],
  'yolov10n-640-int8': ['end-to-end', 640],
  'yolo11n-640-int8': ['ultralytics', 640],
  'yolov8n-640-int8': ['ultralytics', 640],
  'yolo11n-320-int8': ['ultralytics', 320],
  'yolox-nano-416': ['yolox', 416],
};

describe('model families (every model in ../shared/models)', () => {
  const models = fs
    .readdirSync(MODELS_DIR)
    .filter((file) => file.endsWith('.onnx'))
    .map((file) => path.basename(file, '.onnx'))
    .sort();

  it('../shared/models holds the models the tests know', () => {
    expect(models).to.have.members(Object.keys(EXPECTED_FAMILIES));
  });

  for (const name of models) {
    it(`${name}: detected as its family, finds dog.jpg's dog, bicycle and truck where they are, and the horses`, async () => {
      const detector = await loadOnnxDetector(modelPath(name), SETTINGS);
      try {
        const [family, inputSize] = EXPECTED_FAMILIES[name] ?? [];
        expect(detector.family).to.equal(family);
        expect(detector.inputSize).to.deep.equal({ width: inputSize, height: inputSize });
        await expectDogPhotoObjects(detector);
        const horses = await labelsFound(detector, 'horses.jpg');
        expect(horses.filter((label) => label === 'horse').length).to.be.at.least(3);
      } finally {
        await detector.dispose();
      }
    });
  }

  it('the embedded model is the committed YOLOX-nano, served by ONNX Runtime like a model file, answering to the name of the CenterNet it replaced', async () => {
    const detector = await loadEmbeddedDetector(SETTINGS, () => {});
    try {
      expect(detector).to.deep.include({ name: 'yolox-nano-416', kind: 'objects', family: 'yolox', runtime: 'onnxruntime-node', aliases: ['centernet'], inputSize: { width: 416, height: 416 } });
      await expectDogPhotoObjects(detector);
      expect((await labelsFound(detector, 'horses.jpg')).filter((label) => label === 'horse').length).to.be.at.least(3);
    } finally {
      await detector.dispose();
    }
  });

  it('a sidecar JSON overrides family detection and labels', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-sidecar-'));
    try {
      const copy = path.join(folder, 'renamed.onnx');
      fs.copyFileSync(modelPath('yolox-nano-416'), copy);
      const shouted = COCO_LABELS.map((label) => label.toUpperCase());
      fs.writeFileSync(path.join(folder, 'renamed.json'), JSON.stringify({ family: 'yolox', labels: shouted }));
      const detector = await loadOnnxDetector(copy, SETTINGS);
      expect(detector.name).to.equal('renamed');
      expect(await labelsFound(detector, 'dog.jpg')).to.include('DOG');
      await detector.dispose();

      fs.writeFileSync(path.join(folder, 'renamed.json'), JSON.stringify({ family: 'detr' }));
      let failure: unknown;
      await loadOnnxDetector(copy, SETTINGS).catch((error: unknown) => (failure = error));
      expect(String(failure)).to.contain('unknown model family "detr"');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
