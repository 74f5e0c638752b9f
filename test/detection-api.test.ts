import { expect } from 'chai';
import sharp from 'sharp';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import { type Finding, expectDogPhotoObjects } from './support/dog-photo.js';
import * as images from './support/images.js';
import { photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';

describe('POST /api/v1/object-detection (real server, real model)', () => {
  let server: TestServer;
  const schemas = new SchemaCatalogue();

  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  it('finds the dog, the bicycle and the truck in dog.jpg, with schema-valid output', async () => {
    const { status, body, headers } = await postDetection(server.url, imageRequest(photoPath('dog.jpg')), { apiKey: server.apiKey });
    expect(status).to.equal(200);
    expect(headers.get('x-request-id')).to.match(/^[\w-]{8,}$/);
    expect(schemas.check('object-detection-response', body)).to.deep.equal({ ok: true });
    const objects = body.detected_objects as Finding[];
    expectDogPhotoObjects(objects);
    const confidences = objects.map((object) => object.confidence);
    expect(confidences).to.deep.equal([...confidences].sort((a, b) => b - a));
    for (const { bounding_box: box, confidence } of objects) {
      expect(confidence).to.be.at.least(0.1);
      for (const edge of Object.values(box)) expect(Number.isInteger(edge)).to.equal(true);
      expect(box.left).to.be.at.least(0);
      expect(box.top).to.be.at.least(0);
      expect(box.right).to.be.at.most(images.DOG_SIZE.width).and.greaterThan(box.left);
      expect(box.bottom).to.be.at.most(images.DOG_SIZE.height).and.greaterThan(box.top);
    }
  });

  it('applies ConfidenceThreshold', async () => {
    const low = await postDetection(server.url, imageRequest(photoPath('dog.jpg'), { ConfidenceThreshold: '0.01' }), { apiKey: server.apiKey });
    const high = await postDetection(server.url, imageRequest(photoPath('dog.jpg'), { ConfidenceThreshold: '0.6' }), { apiKey: server.apiKey });
    expect(low.status).to.equal(200);
    expect(high.status).to.equal(200);
    expect(high.body.detected_objects.length).to.be.lessThan(low.body.detected_objects.length);
    expect(high.body.detected_objects.map((object: Finding) => object.name).sort()).to.deep.equal(['bicycle', 'dog', 'truck']);
    for (const object of high.body.detected_objects as Finding[]) expect(object.confidence).to.be.at.least(0.6);
  });

  it('accepts "; charset=utf-8", Bearer keys, data URLs and line-wrapped base64', async () => {
    const bytes = images.dogJpeg();
    const wrapped = bytes.toString('base64').replace(/.{76}/g, '$&\n');
    const variants = [
      postDetection(server.url, imageRequest(bytes), { apiKey: server.apiKey, contentType: 'application/json; charset=utf-8' }),
      postDetection(server.url, imageRequest(bytes), { authorization: `Bearer ${server.apiKey}` }),
      postDetection(server.url, { raw_data: `data:image/jpeg;base64,${bytes.toString('base64')}` }, { apiKey: server.apiKey }),
      postDetection(server.url, { raw_data: wrapped }, { apiKey: server.apiKey }),
    ];
    for (const { status, body } of await Promise.all(variants)) {
      expect(status).to.equal(200);
      expectDogPhotoObjects(body.detected_objects);
    }
  });

  it('returns crops that decode to images of exactly the box size', async () => {
    const { status, body } = await postDetection(server.url, imageRequest(photoPath('dog.jpg'), { OutputCroppedImage: 'true' }), { apiKey: server.apiKey });
    expect(status).to.equal(200);
    const objects = body.detected_objects as Finding[];
    expect(objects.length).to.be.at.least(3);
    for (const object of objects) {
      const crop = await sharp(Buffer.from(object.cropped_image!, 'base64')).metadata();
      expect(crop.format).to.equal('jpeg');
      expect(crop.width).to.equal(object.bounding_box.right - object.bounding_box.left);
      expect(crop.height).to.equal(object.bounding_box.bottom - object.bounding_box.top);
    }
    // The dog crop really shows the dog: the model finds a dog in it.
    const dogCrop = Buffer.from(objects.find((object) => object.name === 'dog')!.cropped_image!, 'base64');
    const again = await postDetection(server.url, imageRequest(dogCrop), { apiKey: server.apiKey });
    expect(again.body.detected_objects[0].name).to.equal('dog');
  });

  it('returns a visualized image of the input size with the boxes drawn', async () => {
    const { status, body } = await postDetection(server.url, imageRequest(photoPath('dog.jpg'), { OutputVisualizedImage: 'true' }), { apiKey: server.apiKey });
    expect(status).to.equal(200);
    const visualized = Buffer.from(body.raw_data, 'base64');
    const metadata = await sharp(visualized).metadata();
    expect([metadata.format, metadata.width, metadata.height]).to.deep.equal(['jpeg', images.DOG_SIZE.width, images.DOG_SIZE.height]);
    // Pixels changed along the dog's box outline, and not in a corner far from any box.
    const [drawn, original] = await Promise.all([visualized, images.dogJpeg()].map((bytes) => sharp(bytes).raw().toBuffer()));
    const difference = (x: number, y: number) => {
      const offset = (y * images.DOG_SIZE.width + x) * 3;
      return Math.abs(drawn[offset] - original[offset]) + Math.abs(drawn[offset + 1] - original[offset + 1]) + Math.abs(drawn[offset + 2] - original[offset + 2]);
    };
    const dog = (body.detected_objects as Finding[]).find((object) => object.name === 'dog')!.bounding_box;
    const midY = Math.round((dog.top + dog.bottom) / 2);
    expect(difference(dog.left, midY)).to.be.greaterThan(60);
    expect(difference(5, images.DOG_SIZE.height - 5)).to.be.lessThan(40);
    expect(body.detected_objects[0]).to.not.have.property('cropped_image');
    expect(body).to.not.have.property('visualized_image');
  });

  it('serves the legacy path with the same objects, and honours OutputVisualizedImage there', async () => {
    const legacy = await postDetection(server.url, imageRequest(photoPath('dog.jpg'), { OutputCroppedImage: 'false', OutputVisualizedImage: 'false' }), { apiKey: server.apiKey, path: '/api/object-detection' });
    const current = await postDetection(server.url, imageRequest(photoPath('dog.jpg')), { apiKey: server.apiKey });
    expect(legacy.status).to.equal(200);
    expect(legacy.body).to.deep.equal(current.body);
    expect(legacy.body).to.not.have.property('raw_data');
    const visualized = await postDetection(server.url, imageRequest(photoPath('dog.jpg'), { OutputVisualizedImage: 'true' }), { apiKey: server.apiKey, path: '/api/object-detection' });
    expect(visualized.status).to.equal(200);
    const metadata = await sharp(Buffer.from(visualized.body.raw_data, 'base64')).metadata();
    expect([metadata.format, metadata.width, metadata.height]).to.deep.equal(['jpeg', images.DOG_SIZE.width, images.DOG_SIZE.height]);
  });

  describe('decodes every accepted encoding and colour layout', () => {
    const cases: [string, () => Promise<Buffer>][] = [
      ['PNG', () => images.dogAs('png')],
      ['WebP', () => images.dogAs('webp')],
      ['TIFF', () => images.dogAs('tiff')],
      ['AVIF', () => images.dogAs('avif')],
      ['greyscale JPEG', images.dogGrayscaleJpeg],
      ['CMYK JPEG', images.dogCmykJpeg],
      ['16-bit PNG', images.dog16BitPng],
      ['PNG with alpha', images.dogWithAlphaPng],
      ['animated GIF (first frame)', images.dogAnimatedGif],
    ];
    for (const [label, make] of cases) {
      it(label, async () => {
        const { status, body } = await postDetection(server.url, imageRequest(await make()), { apiKey: server.apiKey });
        expect(status, JSON.stringify(body)).to.equal(200);
        expectDogPhotoObjects(body.detected_objects);
      });
    }

    it('applies EXIF orientation: boxes refer to the upright image', async () => {
      const { status, body } = await postDetection(server.url, imageRequest(await images.dogSidewaysWithExif(), { OutputVisualizedImage: 'true' }), { apiKey: server.apiKey });
      expect(status).to.equal(200);
      expectDogPhotoObjects(body.detected_objects);
      const visualized = await sharp(Buffer.from(body.raw_data, 'base64')).metadata();
      expect([visualized.width, visualized.height]).to.deep.equal([images.DOG_SIZE.width, images.DOG_SIZE.height]);
    });

    it('answers a 1×1 image with no objects', async () => {
      const { status, body } = await postDetection(server.url, imageRequest(await images.onePixelPng(), { OutputVisualizedImage: 'true', OutputCroppedImage: 'true' }), { apiKey: server.apiKey });
      expect(status).to.equal(200);
      expect(body.detected_objects).to.deep.equal([]);
      expect((await sharp(Buffer.from(body.raw_data, 'base64')).metadata()).width).to.equal(1);
    });
  });
});
