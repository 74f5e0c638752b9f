import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { COCO_LABELS } from '../src/models/coco-categories.js';
import { loadOnnxDetector } from '../src/models/runtimes/onnx-detector.js';
import { detectOnce } from '../src/models/detect-once.js';
import { loadEmbeddedDetector } from '../src/models/load-models.js';
import type { Detector } from '../src/models/types.js';
import { decodeImage } from '../src/vision/decode.js';
import { modelPath, photoPath } from './support/paths.js';

const SETTINGS = { threads: 2, concurrency: 1, nmsIou: 0.7 };

async function labelsFound(detector: Detector, photo: string, minScore = 0.4): Promise<string[]> {
  const image = await decodeImage(fs.readFileSync(photoPath(photo)), { maxPixels: 40e6 });
  const { detections, timings } = await detectOnce(detector, image, { minScore, maxDetections: 300 });
  expect(timings.inference).to.be.greaterThan(0);
  return detections.map((detection) => detector.labels[detection.classIndex]);
}

describe('model families (every model in ../shared/models)', () => {
  const expected: [string, string, number][] = [
    ['yolo26n-640-int8', 'end-to-end', 640],
    ['yolov10n-640-int8', 'end-to-end', 640],
    ['yolo11n-640-int8', 'ultralytics', 640],
    ['yolov8n-640-int8', 'ultralytics', 640],
    ['yolo11n-320-int8', 'ultralytics', 320],
    ['yolox-nano-416', 'yolox', 416],
  ];
  for (const [name, family, inputSize] of expected) {
    it(`${name}: detected as ${family}, finds the dog photo's objects and the horses`, async () => {
      const detector = await loadOnnxDetector(modelPath(name), SETTINGS);
      try {
        expect(detector.family).to.equal(family);
        expect(detector.inputSize).to.deep.equal({ width: inputSize, height: inputSize });
        const dogPhoto = await labelsFound(detector, 'dog.jpg');
        expect(dogPhoto).to.include.members(['dog', 'bicycle']);
        expect(dogPhoto.some((label) => label === 'truck' || label === 'car')).to.equal(true);
        const horses = await labelsFound(detector, 'horses.jpg');
        expect(horses.filter((label) => label === 'horse').length).to.be.at.least(3);
      } finally {
        await detector.dispose();
      }
    });
  }

  it('the embedded TF.js CenterNet finds the objects, in a worker that leaves the event loop free', async () => {
    const detector = await loadEmbeddedDetector(() => {});
    try {
      expect(detector).to.deep.include({ name: 'centernet', family: 'centernet', inputSize: { width: 512, height: 512 } });
      expect(detector.runtime).to.match(/^tfjs-(wasm|node)$/);
      // While the model runs (~200 ms), timers on this thread keep firing: nothing blocks it.
      let ticks = 0;
      const timer = setInterval(() => ticks++, 5);
      const dogPhoto = await labelsFound(detector, 'dog.jpg', 0.3);
      clearInterval(timer);
      expect(ticks).to.be.at.least(5);
      expect(dogPhoto).to.include.members(['dog', 'bicycle']);
      expect((await labelsFound(detector, 'horses.jpg', 0.3)).filter((label) => label === 'horse').length).to.be.at.least(3);
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
