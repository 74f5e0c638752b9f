import fs from 'node:fs';
import { expect } from 'chai';
import sharp from 'sharp';
import { imageRequest, postDetection } from './support/detection-client.js';
import { DOG_PHOTO_OBJECTS, dogJpeg, iou } from './support/images.js';
import { PHOTOS_DIR } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';

interface Finding {
  name: string;
  confidence: number;
  bounding_box: { left: number; right: number; top: number; bottom: number };
  cropped_image?: string;
}

const TWELVE_MEGAPIXELS = 12_000_000;

/** A shared photo enlarged to about 12 MP, its shape kept: a camera-sized JPEG, made at test time. */
async function twelveMegapixel(photo: Buffer): Promise<Buffer> {
  const { width = 1, height = 1 } = await sharp(photo).metadata();
  const factor = Math.sqrt(TWELVE_MEGAPIXELS / (width * height));
  return sharp(photo).resize(Math.round(width * factor), Math.round(height * factor)).jpeg({ quality: 90 }).toBuffer();
}

const edges = ({ left, top, right, bottom }: Finding['bounding_box']) => [left, top, right, bottom];

/** Every object of `expected` above 0.3 confidence has one of the same name in `actual` with IoU > 0.9. */
function expectSameObjects(actual: Finding[], expected: Finding[], what: string): void {
  for (const object of expected.filter((candidate) => candidate.confidence > 0.3)) {
    const best = Math.max(0, ...actual.filter((other) => other.name === object.name).map((other) => iou(other.bounding_box, edges(object.bounding_box))));
    expect(best, `${what}: ${object.name} ${object.confidence} at ${edges(object.bounding_box).join(',')}`).to.be.greaterThan(0.9);
  }
}

describe('camera-sized JPEGs are decoded only as large as the model needs (issue 11; real server, real model)', () => {
  let server: TestServer;
  const detect = async (image: Buffer, configurations: Record<string, string> = {}) => {
    const answer = await postDetection(server.url, imageRequest(image, { ConfidenceThreshold: '0.2', ...configurations }), { apiKey: server.apiKey });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).to.equal(200);
    return answer.body as { detected_objects: Finding[]; raw_data?: string };
  };

  before(async () => {
    server = await startTestServer({ DETECTD_MAX_BODY_BYTES: String(64 * 1024 * 1024) });
  });
  after(async () => server?.close());

  it('finds the same objects in the same places as the full-size decode, on every shared photo enlarged to 12 MP', async () => {
    for (const name of fs.readdirSync(PHOTOS_DIR).filter((file) => file.endsWith('.jpg'))) {
      const image = await twelveMegapixel(fs.readFileSync(`${PHOTOS_DIR}/${name}`));
      // Crops make the server decode at full size and letterbox from there: the reference path.
      const full = (await detect(image, { OutputCroppedImage: 'true' })).detected_objects;
      const scaled = (await detect(image)).detected_objects;
      expectSameObjects(scaled, full, `${name} scaled vs full`);
      expectSameObjects(full, scaled, `${name} full vs scaled`);
    }
  });

  it('shrinks other formats as they are decoded, finding the same objects as the full-size decode (12 MP PNG and WebP)', async () => {
    const photo = await twelveMegapixel(dogJpeg());
    for (const format of ['png', 'webp'] as const) {
      const image = await sharp(photo)[format]().toBuffer();
      const full = (await detect(image, { OutputCroppedImage: 'true' })).detected_objects;
      const scaled = (await detect(image)).detected_objects;
      expect(scaled.map((object) => object.name)).to.include.members(['dog', 'bicycle', 'truck']);
      expectSameObjects(scaled, full, `${format} scaled vs full`);
      expectSameObjects(full, scaled, `${format} full vs scaled`);
    }
  });

  it('still crops and draws at full resolution', async () => {
    const image = await twelveMegapixel(dogJpeg());
    const { width, height } = await sharp(image).metadata();
    const { detected_objects: objects, raw_data: visualized } = await detect(image, { OutputCroppedImage: 'true', OutputVisualizedImage: 'true' });
    expect(objects).to.not.be.empty;
    for (const object of objects) {
      const crop = await sharp(Buffer.from(object.cropped_image!, 'base64')).metadata();
      const box = object.bounding_box;
      expect(crop.width, object.name).to.be.closeTo(box.right - box.left, 1);
      expect(crop.height, object.name).to.be.closeTo(box.bottom - box.top, 1);
    }
    const drawn = await sharp(Buffer.from(visualized!, 'base64')).metadata();
    expect([drawn.width, drawn.height]).to.deep.equal([width, height]);
  });

  it('turns an EXIF-rotated 12 MP JPEG upright: boxes in the upright image, the same with and without full-size pixels', async () => {
    const upright = await sharp(dogJpeg()).resize(4032, 3024).jpeg({ quality: 90 }).toBuffer();
    const sideways = await sharp(await sharp(upright).rotate(-90).toBuffer()).withMetadata({ orientation: 6 }).jpeg({ quality: 90 }).toBuffer();
    expect((await sharp(sideways).metadata()).width).to.equal(3024);
    const scaled = (await detect(sideways)).detected_objects;
    const { detected_objects: full, raw_data: visualized } = await detect(sideways, { OutputVisualizedImage: 'true' });
    const drawn = await sharp(Buffer.from(visualized!, 'base64')).metadata();
    expect([drawn.width, drawn.height]).to.deep.equal([4032, 3024]);
    const factor = 4032 / 768;
    for (const [name, reference] of Object.entries(DOG_PHOTO_OBJECTS)) {
      const enlarged = reference.map((edge) => edge * factor);
      for (const [path, objects] of [['scaled', scaled], ['full', full]] as const) {
        const best = Math.max(0, ...objects.filter((object) => object.name === name).map((object) => iou(object.bounding_box, enlarged)));
        expect(best, `${path} ${name}`).to.be.greaterThan(0.85);
      }
    }
    expectSameObjects(scaled, full, 'rotated scaled vs full');
  });
});
