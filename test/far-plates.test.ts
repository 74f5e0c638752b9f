import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import sharp from 'sharp';
import { FRAME, farFrame } from '../scripts/lib/far-plate-frames.js';
import { type LabelledPlateImage, readPlateBenchmark } from '../scripts/plate-eval.js';
import { intersectionOverUnion } from '../src/models/nms.js';
import type { Box } from '../src/vision/image.js';
import { SHARED_DIR } from './support/paths.js';
import { plateModelsFolder } from './support/plate-models.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const PLATES = path.join(SHARED_DIR, 'eval', 'plates');
const COCO = path.join(SHARED_DIR, 'eval', 'coco-val122', 'images');
/** Photos whose plate, pasted 40–72 px wide into a 1080p frame (seed `test`), the whole frame shrunk to the detector's input alone did not find. */
const FAR = ['eu/eu1.jpg', 'br/HPM9362.jpg'];
/** A street photo of COCO behind each: the clutter of a camera's frame. */
const STREET = path.join(COCO, '000000001532.jpg');
/** A photo with no vehicle where the detector fires on text (a sign), enlarged to a 1080p frame: windows and all, still no plate. */
const NO_VEHICLE = path.join(COCO, '000000002587.jpg');

const corners = (box: Box) => ({ x1: box.left, y1: box.top, x2: box.right, y2: box.bottom });

describe('far plates: small plates in 1080p camera frames, through the real server with the real models', function () {
  this.timeout(180_000);
  let server: TestServer;
  let models: string;
  let apiKey: string;
  let frames: { image: LabelledPlateImage; jpeg: Buffer; box: Box }[];

  before(async () => {
    models = plateModelsFolder();
    server = await startTestServer({ DETECTD_MODELS_DIR: models });
    apiKey = await server.createService({ name: 'gate', type: 'license-plate' });
    await server.domain.services.setKeylessAddressRanges((await server.domain.keys.authenticate(apiKey))!, '');
    const labelled = await readPlateBenchmark(PLATES);
    frames = await Promise.all(
      FAR.map(async (file) => {
        const image = labelled.find((each) => each.file === file)!;
        return { image, ...(await farFrame(image, path.join(PLATES, 'images'), [STREET], 'test')) };
      }),
    );
  });
  after(async () => {
    await server?.close();
    fs.rmSync(models, { recursive: true, force: true });
  });

  const alpr = async (jpeg: Buffer) => {
    const form = new FormData();
    form.append('upload', new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), 'frame.jpg');
    const answer = await fetch(`${server.url}/v1/image/alpr`, { method: 'POST', body: form });
    expect(answer.status).to.equal(200);
    return (await answer.json()) as { success: boolean; predictions: { plate: string; x_min: number; y_min: number; x_max: number; y_max: number }[] };
  };

  it('the frames are 1920 × 1080 JPEGs with the plate 40–72 px wide', async () => {
    for (const { jpeg, box } of frames) {
      expect(await sharp(jpeg).metadata()).to.include({ format: 'jpeg', width: FRAME.width, height: FRAME.height });
      expect(box.right - box.left).to.be.within(40, 72);
    }
  });

  it('CodeProject.AI ALPR (upload): finds and reads each plate, its box over the labelled one', async () => {
    for (const { image, jpeg, box } of frames) {
      const { success, predictions } = await alpr(jpeg);
      expect(success).to.equal(true);
      const over = predictions.find((p) => intersectionOverUnion(corners({ left: p.x_min, top: p.y_min, right: p.x_max, bottom: p.y_max }), corners(box)) >= 0.5);
      expect(over, `${image.file}: ${JSON.stringify(predictions)}`).to.not.equal(undefined);
      expect(over!.plate).to.equal(image.plate);
    }
  });

  it('REST v1: the same plates under detected_plates', async () => {
    for (const { image, jpeg, box } of frames) {
      const answer = await fetch(`${server.url}/api/v1/license-plate`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'image/jpeg' }, body: new Uint8Array(jpeg) });
      expect(answer.status).to.equal(200);
      const { detected_plates: plates } = (await answer.json()) as { detected_plates: { name: string; bounding_box: Box }[] };
      const over = plates.find((plate) => intersectionOverUnion(corners(plate.bounding_box), corners(box)) >= 0.5);
      expect(over, `${image.file}: ${JSON.stringify(plates)}`).to.include({ name: image.plate });
    }
  });

  it('a vehicle-free photo as a 1080p frame gives no plate', async () => {
    const frame = await sharp(NO_VEHICLE).resize(FRAME.width, FRAME.height, { fit: 'cover' }).jpeg({ quality: 85 }).toBuffer();
    const { success, predictions } = await alpr(frame);
    expect(success).to.equal(true);
    expect(predictions).to.deep.equal([]);
  });
});
