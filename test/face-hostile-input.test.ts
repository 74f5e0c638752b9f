import fs from 'node:fs';
import { expect } from 'chai';
import sharp from 'sharp';
import * as images from './support/images.js';
import { cropPath } from './support/faces.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/** Images no face route may answer with a 500: each with the status and error code it must get. */
async function hostileImages(): Promise<{ name: string; bytes: Buffer; status: number; code: string }[]> {
  const heic = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic'), Buffer.alloc(64, 0xee)]);
  return [
    { name: 'a zero-byte image', bytes: Buffer.alloc(0), status: 400, code: 'invalid_image' },
    { name: 'a cut JPEG', bytes: images.truncatedJpeg(), status: 400, code: 'invalid_image' },
    { name: 'text, not an image', bytes: Buffer.from('this is not an image'), status: 400, code: 'invalid_image' },
    { name: 'a fake HEIC header', bytes: heic, status: 400, code: 'invalid_image' },
    { name: 'a PNG whose data is cut', bytes: (await images.onePixelPng()).subarray(0, 40), status: 400, code: 'invalid_image' },
    { name: 'an image past the pixel limit', bytes: await sharp({ create: { width: 3000, height: 2000, channels: 3, background: '#000' } }).jpeg().toBuffer(), status: 413, code: 'image_too_large' },
  ];
}

/** Well-formed images with no face, or almost no pixels: answered, with no face. */
async function facelessImages(): Promise<{ name: string; bytes: Buffer }[]> {
  return [
    { name: 'one pixel', bytes: await images.onePixelPng() },
    { name: 'a 1 × 2000 line', bytes: await sharp({ create: { width: 1, height: 2000, channels: 3, background: '#777' } }).png().toBuffer() },
    { name: 'a black 2000 × 1 line', bytes: await sharp({ create: { width: 2000, height: 1, channels: 3, background: '#000' } }).png().toBuffer() },
    { name: 'a grey 300 × 300 square (framed as a crop)', bytes: await sharp({ create: { width: 300, height: 300, channels: 3, background: '#808080' } }).jpeg().toBuffer() },
  ];
}

describe('hostile input on the face routes: precise 4xx answers, never a 500, and the next request works', function () {
  this.timeout(120_000);
  let server: TestServer;
  let key: string;
  const crop = () => fs.readFileSync(cropPath('amy', 1));

  /** A DeepStack face call: the image (or `image1`, `image2`) as a form upload, the key in the header. */
  async function deepStack(route: string, files: Record<string, Buffer>, fields: Record<string, string> = {}): Promise<{ status: number; body: any }> {
    const form = new FormData();
    for (const [field, bytes] of Object.entries(files)) form.append(field, new Blob([new Uint8Array(bytes)]), `${field}.bin`);
    for (const [field, value] of Object.entries(fields)) form.append(field, value);
    const response = await fetch(`${server.url}/v1/vision/${route}`, { method: 'POST', headers: { Authorization: `ApiKey ${key}` }, body: form });
    return { status: response.status, body: await response.json() };
  }

  /** The Nvision face API with the raw image as the body. */
  async function nvision(bytes: Buffer, path = '/api/v1/face-detection'): Promise<{ status: number; body: any }> {
    const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { Authorization: `ApiKey ${key}`, 'Content-Type': 'image/jpeg' }, body: new Uint8Array(bytes) });
    return { status: response.status, body: await response.json() };
  }

  before(async () => {
    server = await startTestServer({ DETECTD_MODEL: DEFAULT_TEST_MODEL, DETECTD_MAX_IMAGE_PIXELS: '4000000' });
    key = await server.createService({ type: 'face-detection', name: 'door' });
  });
  after(async () => {
    expect(server.logText(), 'no request was a bug').to.not.contain('"code":"internal_error"');
    await server.close();
  });
  afterEach(async () => {
    const healthy = await deepStack('face', { image: crop() });
    expect(healthy.status, 'the next request works').to.equal(200);
    expect(healthy.body.predictions).to.have.length(1);
  });

  it('a broken, empty or oversized image: the same 4xx on every face route (Nvision raw and legacy, DeepStack detect, recognize, register, match)', async () => {
    for (const image of await hostileImages()) {
      for (const path of ['/api/v1/face-detection', '/api/face-detection']) {
        const answer = await nvision(image.bytes, path);
        expect(answer.status, `${image.name} on ${path}: ${JSON.stringify(answer.body)}`).to.equal(image.status);
        expect(answer.body.error.code, `${image.name} on ${path}`).to.equal(image.code);
        expect(answer.body.error.message, `${image.name} on ${path}`).to.not.match(/Input Buffer|bad seek|\n\s+at /);
      }
      for (const [route, files, fields] of [
        ['face', { image: image.bytes }, {}],
        ['face/recognize', { image: image.bytes }, {}],
        ['face/register', { image: image.bytes }, { userid: 'amy' }],
        ['face/match', { image1: image.bytes, image2: crop() }, {}],
      ] as const) {
        const answer = await deepStack(route, files, fields);
        expect(answer.status, `${image.name} on ${route}: ${JSON.stringify(answer.body)}`).to.equal(image.status);
        expect(answer.body.success, `${image.name} on ${route}`).to.equal(false);
        expect(answer.body.error, `${image.name} on ${route}`).to.be.a('string').and.not.match(/Input Buffer|bad seek|\n\s+at /);
      }
    }
    expect((await deepStack('face/list', {})).body.faces).to.deep.equal([]);
  });

  it('a well-formed image with no face, or almost no pixels: no face found, and nobody registered from it', async () => {
    for (const image of await facelessImages()) {
      expect((await nvision(image.bytes)).body.detected_faces, image.name).to.deep.equal([]);
      expect((await deepStack('face/recognize', { image: image.bytes })).body.predictions, image.name).to.deep.equal([]);
      const registered = await deepStack('face/register', { image: image.bytes }, { userid: 'nobody' });
      expect([registered.status, registered.body.error], image.name).to.deep.equal([400, 'No face detected']);
    }
    expect((await deepStack('face/list', {})).body.faces).to.deep.equal([]);
  });

  it('a userid with any control character (C1 too) or differing from a registered one only in case: 400 with the reason, nothing stored', async () => {
    for (const userid of ['a\u0085b', 'a\u009bb', 'tab\there', 'bell\u0007']) {
      const answer = await deepStack('face/register', { image: crop() }, { userid });
      expect([answer.status, answer.body.error], JSON.stringify(userid)).to.deep.equal([400, 'userid must be 1 to 200 characters, no control characters']);
    }
    expect((await deepStack('face/register', { image: crop() }, { userid: 'Amy' })).status).to.equal(200);
    const other = await deepStack('face/register', { image: crop() }, { userid: 'amy' });
    expect(other.status).to.equal(400);
    expect(other.body.error).to.contain('"Amy"').and.contain('case');
    expect((await deepStack('face/list', {})).body.faces).to.deep.equal(['Amy']);
    expect((await deepStack('face/delete', {}, { userid: 'AMY' })).status).to.equal(200);
    expect((await deepStack('face/list', {})).body.faces).to.deep.equal([]);
  });
});
