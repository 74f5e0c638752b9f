import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { DetectdError } from '../src/core/errors.js';
import { loadPlateModels, loadPlateReader, type PlateModels } from '../src/models/load-plate-models.js';
import { tryModelFiles } from '../src/models/load-models.js';
import { ModelRefused } from '../src/models/model-refused.js';
import { type FileDetector, modelNameOf } from '../src/models/model-repository.js';
import { ModelScheduler } from '../src/scheduler/model-scheduler.js';
import { type PlateAnalysis, readPlates } from '../src/features/plates/read-plates.js';
import { cropsInto } from '../src/vision/crops.js';
import { PLATE_MIN_SCORE } from '../scripts/plate-eval.js';
import { SHARED_DIR } from './support/paths.js';

const PLATES_DIR = path.join(SHARED_DIR, 'models', 'plates');
const MODELS = { detector: path.join(PLATES_DIR, 'yolo-v9-t-416-license-plates-end2end-int8.onnx'), reader: path.join(PLATES_DIR, 'cct_xs_v2_global.onnx') };
const PHOTOS = path.join(SHARED_DIR, 'eval', 'plates', 'images');
const COCO = path.join(SHARED_DIR, 'eval', 'coco-val122', 'images');
const SETTINGS = { threads: 1, concurrency: 1, nmsIou: 0.7 };
const LIMITS = { maxPixels: 100e6, maxDetections: 100, deadlineMs: 60_000 };

describe('licence plates: detector → crops → reader, with the real models and photos', function () {
  this.timeout(120_000);
  let models: PlateModels;
  let scheduler: ModelScheduler<FileDetector>;

  before(async () => {
    models = await loadPlateModels(MODELS, SETTINGS);
    scheduler = new ModelScheduler(models.detector, { maxAdmitted: 4 });
  });
  after(async () => {
    await models?.detector.dispose();
    await models?.reader.dispose();
  });

  const read = (bytes: Buffer): Promise<PlateAnalysis> =>
    readPlates({ bytes, scheduler, minScore: PLATE_MIN_SCORE, limits: LIMITS, signal: new AbortController().signal }, models.reader, {});

  it('loads the detector as a plate detector and the reader with its country guesses', () => {
    expect(models.detector).to.include({ kind: 'plates', family: 'yolo-plates-end2end', runtime: 'onnxruntime-node' });
    expect(models.detector.labels).to.deep.equal(['plate']);
    expect(models.detector.inputSize).to.deep.equal({ width: 416, height: 416 });
    expect(models.reader).to.include({ name: 'cct_xs_v2_global', family: 'fast-plate-ocr', regions: true });
  });

  for (const [file, plate, region, [x, y, w, h]] of [
    // The guess on this plate moves with the box's exact crop: "United States" from the whole image's box, "Canada" from a 640 px window's, which scores higher and is kept: not asserted.
    ['us/wts-lg-000014.jpg', 'DG2Z6U', undefined, [552, 172, 90, 45]],
    ['br/JQS5683.jpg', 'JQS5683', 'Brazil', [512, 537, 181, 58]],
    // The reader guesses a country for every plate; on this British one, its guess is wrong (Austria): not asserted.
    ['eu/eu1.jpg', 'M5XSX', undefined, [396, 340, 203, 46]],
  ] as const) {
    it(`reads ${plate} on ${file}, its box over the labelled plate`, async () => {
      const { plates, width, height } = await read(fs.readFileSync(path.join(PHOTOS, file)));
      const found = plates.find((candidate) => candidate.text === plate);
      expect(found, JSON.stringify(plates)).to.not.equal(undefined);
      expect(found!.confidence).to.be.within(0.25, 1);
      expect(found!.readConfidence).to.be.within(0.8, 1);
      if (region) expect(found!.region?.name).to.equal(region);
      const { box } = found!;
      expect(box.left).to.be.at.least(0);
      expect(box.top).to.be.at.least(0);
      expect(box.right).to.be.at.most(width);
      expect(box.bottom).to.be.at.most(height);
      expect((box.left + box.right) / 2).to.be.within(x, x + w);
      expect((box.top + box.bottom) / 2).to.be.within(y, y + h);
    });
  }

  it('finds no plate on photos without a vehicle, also where the detector fires on other text', async () => {
    // 000000000285: nothing like a plate. The detector fires on the others: 000000002587 reads "M590" at a mean
    // character probability of 0.74, 000000007278 "LU", 000000002685 nothing at all.
    for (const file of ['000000000285.jpg', '000000002587.jpg', '000000007278.jpg', '000000002685.jpg']) {
      const { plates } = await read(fs.readFileSync(path.join(COCO, file)));
      expect(plates, file).to.deep.equal([]);
    }
  });

  it('refuses an empty or cut-short image with a precise invalid_image error', async () => {
    const empty = await read(Buffer.alloc(0)).then(() => undefined, (error: unknown) => error);
    expect(empty).to.be.instanceOf(DetectdError);
    expect(empty).to.include({ code: 'invalid_image' });
    expect((empty as Error).message).to.equal('the image is empty (0 bytes); send a JPEG, PNG, WebP, GIF, TIFF or AVIF image');
    const photo = fs.readFileSync(path.join(PHOTOS, 'us/wts-lg-000014.jpg'));
    const cut = await read(photo.subarray(0, 600)).then(() => undefined, (error: unknown) => error);
    expect(cut).to.be.instanceOf(DetectdError);
    expect(cut).to.include({ code: 'invalid_image' });
    expect((cut as Error).message).to.match(/^the JPEG image is damaged or cut short/);
  });

  it('refuses a reader whose configuration is missing, naming the file it looked for', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-reader-'));
    try {
      const alone = path.join(folder, 'cct_xs_v2_global.onnx');
      fs.copyFileSync(MODELS.reader, alone);
      const refusal = await loadPlateReader(alone, SETTINGS).then(() => undefined, (error: unknown) => error);
      expect(refusal).to.be.instanceOf(ModelRefused);
      expect((refusal as Error).message).to.include(`${path.join(folder, 'cct_xs_v2_global_plate_config.yaml')} does not exist`);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('is served from a models folder as the kind its configuration declares; without one it is never taken for a plate detector', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-plate-models-'));
    const file = path.join(folder, path.basename(MODELS.detector));
    fs.symlinkSync(path.resolve(MODELS.detector), file);
    try {
      const [undeclared] = await tryModelFiles({ modelPaths: [], modelsDir: { path: folder, required: true } }, SETTINGS, false);
      expect('model' in undeclared && undeclared.model.kind, 'no configuration').to.not.equal('plates');
      fs.writeFileSync(path.join(folder, `${modelNameOf(file)}.json`), JSON.stringify({ kind: 'plates', family: 'yolo-plates-end2end' }));
      const [declared] = await tryModelFiles({ modelPaths: [], modelsDir: { path: folder, required: true } }, SETTINGS, false);
      expect('model' in declared && declared.model).to.include({ role: 'detector', kind: 'plates', family: 'yolo-plates-end2end' });
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('plate crops (vision/crops.ts)', () => {
  it('stretches each region over the input, one after another, as RGB bytes', () => {
    // A 4×2 image: left half red, right half blue.
    const data = Buffer.alloc(4 * 2 * 3);
    for (let y = 0; y < 2; y++) for (let x = 0; x < 4; x++) data.set(x < 2 ? [200, 0, 0] : [0, 0, 200], (y * 4 + x) * 3);
    const tensor = new Uint8Array(2 * 3 * 2 * 3);
    cropsInto({ width: 4, height: 2, data }, { crops: [{ left: 0, top: 0, right: 2, bottom: 2 }, { left: 2, top: 0, right: 4, bottom: 2 }], width: 3, height: 2 }, tensor);
    expect([...tensor.subarray(0, 18)]).to.deep.equal(Array.from({ length: 6 }, () => [200, 0, 0]).flat());
    expect([...tensor.subarray(18)]).to.deep.equal(Array.from({ length: 6 }, () => [0, 0, 200]).flat());
  });
});
