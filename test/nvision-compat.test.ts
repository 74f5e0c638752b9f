import { expect } from 'chai';
import { generateApiKey } from '../src/accounts/api-keys.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import * as images from './support/images.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/** One rule each of what the Nvision clients send and read (issue 9), over real HTTP on the real server. */
describe('Nvision client compatibility of the JSON API (real server)', () => {
  let server: TestServer;
  let serviceId: string;
  let tinyImage: Buffer;

  before(async () => {
    server = await startTestServer();
    serviceId = (await server.db.selectFrom('services').select('id').executeTakeFirstOrThrow()).id;
    tinyImage = await images.onePixelPng();
  });
  after(async () => {
    await server?.close();
  });

  const post = (body: unknown, options: Parameters<typeof postDetection>[2] = {}) => postDetection(server.url, body, { apiKey: server.apiKey, ...options });

  describe('Content-Type', () => {
    it('accepts "application/json;charset=utf-8" (no space), as the JS SDK sends it', async () => {
      const { status } = await post(imageRequest(tinyImage), { contentType: 'application/json;charset=utf-8' });
      expect(status).to.equal(200);
    });
    it('still refuses another charset with 415 unsupported_media_type', async () => {
      const { status, body } = await post(imageRequest(tinyImage), { contentType: 'application/json;charset=latin1' });
      expect([status, body.error.code]).to.deep.equal([415, 'unsupported_media_type']);
    });
  });

  describe('frame_id and source_id', () => {
    it('echoes both strings in the response', async () => {
      const { status, body } = await post({ ...imageRequest(tinyImage), frame_id: 'f-1', source_id: 'camera 2' });
      expect(status).to.equal(200);
      expect(body).to.deep.equal({ service_id: serviceId, frame_id: 'f-1', source_id: 'camera 2', detected_objects: [] });
    });
    it('leaves them out when the request has none', async () => {
      const { body } = await post(imageRequest(tinyImage));
      expect(body).to.deep.equal({ service_id: serviceId, detected_objects: [] });
    });
    it('refuses a frame_id that is not a string with 400 invalid_request naming the field', async () => {
      const { status, body } = await post({ ...imageRequest(tinyImage), frame_id: 7 });
      expect([status, body.error.code]).to.deep.equal([400, 'invalid_request']);
      expect(body.error.message).to.contain('frame_id');
    });
    it('refuses a source_id over 256 characters with 400 invalid_request', async () => {
      const { status, body } = await post({ ...imageRequest(tinyImage), source_id: 'x'.repeat(257) });
      expect([status, body.error.code]).to.deep.equal([400, 'invalid_request']);
      expect(body.error.message).to.contain('source_id');
    });
    it('still refuses any other unknown field', async () => {
      const { status, body } = await post({ ...imageRequest(tinyImage), frameid: 'f' });
      expect([status, body.error.code]).to.deep.equal([400, 'invalid_request']);
      expect(body.error.message).to.contain('frameid');
    });
  });

  describe('configurations', () => {
    it('treats [] as all defaults', async () => {
      const empty = await post({ raw_data: images.dogJpeg().toString('base64'), configurations: [] });
      const absent = await post({ raw_data: images.dogJpeg().toString('base64') });
      expect(empty.status).to.equal(200);
      expect(empty.body).to.deep.equal(absent.body);
    });
    it('accepts a JS number string in exponent form ("1e-7") as ConfidenceThreshold', async () => {
      const low = await post(imageRequest(images.dogJpeg(), { ConfidenceThreshold: '1e-7' }));
      const usual = await post(imageRequest(images.dogJpeg()));
      expect(low.status).to.equal(200);
      expect(low.body.detected_objects.length).to.be.greaterThan(usual.body.detected_objects.length);
    });
    it('still refuses "1e-7x" and "-1e-7" with 400 invalid_configuration', async () => {
      for (const value of ['1e-7x', '-1e-7']) {
        const { status, body } = await post(imageRequest(tinyImage, { ConfidenceThreshold: value }));
        expect([status, body.error.code], value).to.deep.equal([400, 'invalid_configuration']);
      }
    });
  });

  describe('target_classes', () => {
    it('returns only objects of the named classes, and draws only those', async () => {
      const { status, body } = await post({ ...imageRequest(images.dogJpeg(), { OutputVisualizedImage: 'true' }), target_classes: ['dog', 'truck'] });
      expect(status).to.equal(200);
      expect(new Set(body.detected_objects.map((object: { name: string }) => object.name))).to.deep.equal(new Set(['dog', 'truck']));
      expect(body.raw_data).to.be.a('string');
    });
    it('treats [] as every class', async () => {
      const empty = await post({ ...imageRequest(images.dogJpeg()), target_classes: [] });
      const absent = await post(imageRequest(images.dogJpeg()));
      expect(empty.status).to.equal(200);
      expect(empty.body).to.deep.equal(absent.body);
    });
    it('refuses an unknown class name with 400 invalid_request listing the valid names', async () => {
      const { status, body } = await post({ ...imageRequest(tinyImage), target_classes: ['dog', 'dgo'] });
      expect([status, body.error.code]).to.deep.equal([400, 'invalid_request']);
      expect(body.error.message).to.contain('"dgo"').and.contain('person, bicycle, car').and.not.contain('"dog"');
    });
    it('refuses a target_classes that is not an array of strings with 400 invalid_request', async () => {
      for (const targetClasses of ['dog', [1]]) {
        const { status, body } = await post({ ...imageRequest(tinyImage), target_classes: targetClasses });
        expect([status, body.error.code], JSON.stringify(targetClasses)).to.deep.equal([400, 'invalid_request']);
        expect(body.error.message).to.contain('target_classes');
      }
    });
  });

  describe('the visualized image and service_id', () => {
    for (const path of ['/api/v1/object-detection', '/api/object-detection']) {
      it(`${path}: OutputVisualizedImage "true" returns the image once, as raw_data`, async () => {
        const { status, body } = await post(imageRequest(tinyImage, { OutputVisualizedImage: 'true' }), { path });
        expect(status).to.equal(200);
        expect(Object.keys(body).sort()).to.deep.equal(['detected_objects', 'raw_data', 'service_id']);
        expect(Buffer.from(body.raw_data, 'base64').subarray(0, 3)).to.deep.equal(Buffer.from([0xff, 0xd8, 0xff]));
        expect(body.service_id).to.equal(serviceId);
      });
      it(`${path}: OutputVisualizedImage "false" returns no image; "maybe" is 400 invalid_configuration`, async () => {
        const off = await post(imageRequest(tinyImage, { OutputVisualizedImage: 'false' }), { path });
        expect(off.body).to.deep.equal({ service_id: serviceId, detected_objects: [] });
        const { status, body } = await post(imageRequest(tinyImage, { OutputVisualizedImage: 'maybe' }), { path });
        expect([status, body.error.code]).to.deep.equal([400, 'invalid_configuration']);
      });
    }
  });

  describe('Authorization', () => {
    it('accepts the bare key, as some Nvision apps send it', async () => {
      const { status, body } = await post(imageRequest(tinyImage), { apiKey: undefined, authorization: server.apiKey });
      expect(status).to.equal(200);
      expect(body.service_id).to.equal(serviceId);
    });
    it('accepts "ApiKey <key>" and "Bearer <key>"', async () => {
      for (const authorization of [`ApiKey ${server.apiKey}`, `Bearer ${server.apiKey}`]) {
        expect((await post(imageRequest(tinyImage), { authorization })).status, authorization.split(' ')[0]).to.equal(200);
      }
    });
    it('answers 401 unauthorized for a bare key of the right shape that is unknown', async () => {
      const { status, body } = await post(imageRequest(tinyImage), { apiKey: undefined, authorization: generateApiKey() });
      expect([status, body.error.code]).to.deep.equal([401, 'unauthorized']);
      expect(body.error.message).to.contain('unknown');
    });
    it('answers 401 unauthorized for a bare value without the key shape, or another scheme', async () => {
      for (const authorization of ['not-a-key', `Basic ${server.apiKey}`, `${server.apiKey}x`]) {
        const { status, body } = await post(imageRequest(tinyImage), { apiKey: undefined, authorization });
        expect([status, body.error.code], authorization).to.deep.equal([401, 'unauthorized']);
      }
    });
  });
});
