import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadOnnxDetector } from '../src/models/runtimes/onnx/onnx-detector.js';
import type { Box } from '../src/vision/image.js';
import { detectOnce } from './support/detect-once.js';
import { pythonNames, type SyntheticModel, writeSyntheticOnnx } from './support/synthetic-onnx.js';

const SETTINGS = { threads: 1, concurrency: 1, nmsIou: 0.7 };
const OPTIONS = { minScore: 0.5, maxDetections: 10 };
/** A 16:9 camera input, as a model exported with imgsz [384, 640] declares it: [1, 3, 384, 640]. */
const INPUT = { width: 640, height: 384 };
const image = (width: number, height: number) => ({ width, height, data: Buffer.alloc(width * height * 3, 128) });
const expectBox = (actual: Box, expected: Box) => {
  for (const side of ['left', 'top', 'right', 'bottom'] as const) expect(actual[side], side).to.be.closeTo(expected[side], 1e-9);
};

/**
 * Detectors whose input is not square: the model's declared [N, 3, H, W] sets the letterbox, and the
 * boxes it answers in input pixels map back to the image's. Each model answers one constant box, so
 * where it lands in the image is the letterbox's geometry alone.
 */
describe('a detector with a non-square input', () => {
  let folder: string;
  beforeEach(() => (folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-non-square-'))));
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  async function load(model: SyntheticModel, configuration?: object) {
    const file = path.join(folder, 'wide.onnx');
    writeSyntheticOnnx(file, model);
    if (configuration) fs.writeFileSync(path.join(folder, 'wide.json'), JSON.stringify(configuration));
    return loadOnnxDetector(file, SETTINGS);
  }

  it('end-to-end (Ultralytics letterbox, centred): a landscape image fills the width, a portrait one the height, boxes back in image pixels', async () => {
    // One row: x1, y1, x2, y2, score, class, in input pixels.
    const detector = await load({ inputSize: INPUT, outputShape: [1, 1, 6], outputValues: [250, 50, 400, 250, 0.9, 1], metadata: { task: 'detect', names: pythonNames(['cat', 'dog']), imgsz: '[384, 640]', stride: '32' } });
    try {
      expect(detector.inputSize).to.deep.equal(INPUT);
      // 1280 × 720 at 0.5: 640 × 360, centred 12 px down.
      const [landscape] = (await detectOnce(detector, image(1280, 720), OPTIONS)).detections;
      expect(landscape).to.deep.include({ classIndex: 1, score: Math.fround(0.9) });
      expectBox(landscape.box, { left: 500, top: 76, right: 800, bottom: 476 });
      // 720 × 1280 at 0.3: 216 × 384, centred 212 px across (424 / 2, less Ultralytics' 0.1, rounded).
      const [portrait] = (await detectOnce(detector, image(720, 1280), OPTIONS)).detections;
      expectBox(portrait.box, { left: (250 - 212) / 0.3, top: 50 / 0.3, right: (400 - 212) / 0.3, bottom: 250 / 0.3 });
    } finally {
      await detector.dispose();
    }
  });

  it('YOLOX (top-left): its grids are 80 × 48, 40 × 24 and 20 × 12 cells, read row by row', async () => {
    const cells = [8, 16, 32].map((stride) => (INPUT.width / stride) * (INPUT.height / stride));
    const rows = cells.reduce((sum, count) => sum + count, 0);
    const values = new Array(rows * 7).fill(0);
    // Stride 32's cell in column 3 of row 1: centre (96, 32), 32 px across (exp(0) × 32); objectness 1, class 0.9.
    values.splice((cells[0] + cells[1] + 20 + 3) * 7, 7, 0, 0, 0, 0, 1, 0.9, 0);
    const detector = await load({ inputSize: INPUT, outputShape: [1, rows, 7], outputValues: values }, { family: 'yolox', labels: ['cat', 'dog'] });
    try {
      const [found, ...others] = (await detectOnce(detector, image(1280, 720), OPTIONS)).detections;
      expect(others).to.deep.equal([]);
      expect(found.classIndex).to.equal(0);
      // At 0.5, at the top-left corner: input pixels × 2.
      expectBox(found.box, { left: 160, top: 32, right: 224, bottom: 96 });
    } finally {
      await detector.dispose();
    }
  });
});
