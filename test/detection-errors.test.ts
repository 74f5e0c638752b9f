import { expect } from 'chai';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { type CallResult, imageRequest, postDetection } from './support/detection-client.js';
import * as images from './support/images.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const schemas = new SchemaCatalogue();

function expectError(result: CallResult, status: number, code: string): void {
  expect(result.status, JSON.stringify(result.body)).to.equal(status);
  expect(schemas.check('error-response', result.body)).to.deep.equal({ ok: true });
  expect(result.body.error.code).to.equal(code);
  expect(result.body.error.request_id).to.equal(result.headers.get('x-request-id'));
  expect(result.body.error.message).to.be.a('string').and.not.match(/\n\s+at /); // no stack traces
}

describe('errors: every code from a real request, and the server keeps serving', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    // The key is never written to the log, whatever happened.
    expect(server.logText()).to.not.contain(server.apiKey);
    await server.close();
  });
  afterEach(async () => {
    const healthy = await postDetection(server.url, imageRequest(await images.onePixelPng()), { apiKey: server.apiKey });
    expect(healthy.status, 'the next request works').to.equal(200);
  });

  const post = (body: unknown, options: Parameters<typeof postDetection>[2] = {}) => postDetection(server.url, body, { apiKey: server.apiKey, ...options });

  it('400 invalid_json', async () => {
    expectError(await post('{"raw_data": "abc"'), 400, 'invalid_json');
  });

  it('400 invalid_request: missing field, unknown field, wrong type, not an object', async () => {
    const missing = await post({ configurations: [] });
    expectError(missing, 400, 'invalid_request');
    expect(missing.body.error.message).to.contain('raw_data');
    const unknown = await post({ raw_data: 'AAAA', image: 'x' });
    expectError(unknown, 400, 'invalid_request');
    expect(unknown.body.error.message).to.contain('"image"');
    expectError(await post({ raw_data: 42 }), 400, 'invalid_request');
    expectError(await post({ raw_data: 'AAAA', configurations: [{ parameter: 'ConfidenceThreshold', value: 0.5 }] }), 400, 'invalid_request');
    expectError(await post('[1, 2]'), 400, 'invalid_request');
  });

  it('400 invalid_base64', async () => {
    expectError(await post({ raw_data: 'not base64 at all!' }), 400, 'invalid_base64');
    expectError(await post({ raw_data: '   ' }), 400, 'invalid_base64');
    expectError(await post({ raw_data: 'A' }), 400, 'invalid_base64');
  });

  it('400 invalid_image: each refusal says what the bytes are and names the accepted formats, never in the decoding library\'s words', async () => {
    const accepted = 'send a JPEG, PNG, WebP, GIF, TIFF or AVIF image';
    const whole = 'send a whole JPEG, PNG, WebP, GIF, TIFF or AVIF image';
    // An ISO-BMFF header naming HEIC, then bytes that lead nowhere (as a renamed or cut HEIC file does).
    const fakeHeic = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic\0\0\0\0mif1heic'), Buffer.alloc(4000, 0xee)]);
    const cases: [string, Buffer, string][] = [
      ['empty', Buffer.alloc(0), `the image is empty (0 bytes); ${accepted}`],
      ['text', Buffer.from('hello, this is not an image'), `the bytes are not an image in a format detectd reads; ${accepted}`],
      ['truncated JPEG', images.truncatedJpeg(), `the JPEG image is damaged or cut short and cannot be decoded; ${whole}`],
      ['a JPEG header alone', images.dogJpeg().subarray(0, 300), `the JPEG image is damaged or cut short and cannot be decoded; ${whole}`],
      ['fake HEIC', fakeHeic, `HEIC images (HEVC-coded HEIF, an iPhone camera's default) cannot be decoded here; ${accepted}`],
      ['SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'), `SVG images are not accepted; ${accepted}`],
      ['PDF', Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n'), `the bytes are a PDF document, not an image; ${accepted}`],
    ];
    for (const [name, bytes, message] of cases) {
      const refused = await post(bytes, { contentType: 'application/octet-stream' });
      expectError(refused, 400, 'invalid_image');
      expect(refused.body.error.message, name).to.equal(message);
    }
  });

  it('an application/octet-stream body is the image itself, as image/jpeg is', async () => {
    const answer = await post(images.dogJpeg(), { contentType: 'application/octet-stream' });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    expect(answer.body.detected_objects.map((object: { name: string }) => object.name)).to.include('dog');
  });

  it('401 for a bare key one character off: "unknown", not "send the key"', async () => {
    const refused = await post(imageRequest(images.dogJpeg()), { authorization: `${server.apiKey}x` });
    expectError(refused, 401, 'unauthorized');
    expect(refused.body.error.message).to.equal('the API key is unknown, expired or revoked');
    const missing = await post(imageRequest(images.dogJpeg()), { authorization: '' });
    expect(missing.body.error.message).to.equal('send the service\'s API key as "Authorization: ApiKey <key>"');
  });

  it('403 for a key of another type of service, in words ("an object-detection service")', async () => {
    const faceKey = await server.createService({ type: 'face-detection' });
    const refused = await post(imageRequest(images.dogJpeg()), { apiKey: faceKey });
    expectError(refused, 403, 'forbidden');
    expect(refused.body.error.message).to.equal('this key belongs to a service of type face-detection; this route needs a key of an object-detection service');
  });

  it('400 invalid_configuration: unknown, repeated, bad values — naming the parameter and what is allowed', async () => {
    const cases: [Record<string, string>[], string][] = [
      [[{ parameter: 'Threshold', value: '0.5' }], 'Threshold'],
      [[{ parameter: 'ConfidenceThreshold', value: '0.5' }, { parameter: 'ConfidenceThreshold', value: '0.6' }], 'more than once'],
      [[{ parameter: 'ConfidenceThreshold', value: '1.5' }], 'from 0 to 1'],
      [[{ parameter: 'ConfidenceThreshold', value: 'abc' }], 'from 0 to 1'],
      [[{ parameter: 'ConfidenceThreshold', value: '-0.1' }], 'from 0 to 1'],
      [[{ parameter: 'OutputCroppedImage', value: 'yes' }], '"true" or "false"'],
    ];
    for (const [configurations, mention] of cases) {
      const result = await post({ raw_data: images.dogJpeg().toString('base64'), configurations });
      expectError(result, 400, 'invalid_configuration');
      expect(result.body.error.message).to.contain(configurations[0].parameter).and.contain(mention);
    }
  });

  it('401 unauthorized: missing, malformed, unknown keys — before the body is read', async () => {
    expectError(await post(imageRequest(images.dogJpeg()), { apiKey: '' }), 401, 'unauthorized');
    expectError(await post(imageRequest(images.dogJpeg()), { authorization: 'Basic dXNlcjpwYXNz' }), 401, 'unauthorized');
    const wrong = await post(imageRequest(images.dogJpeg()), { apiKey: 'dtd_' + 'A'.repeat(43) });
    expectError(wrong, 401, 'unauthorized');
    expect(wrong.headers.get('www-authenticate')).to.contain('ApiKey');
    // A body far over the size limit is not even read: the answer is 401, not 413.
    const huge = 'x'.repeat(25 * 1024 * 1024);
    expectError(await post(huge, { apiKey: 'dtd_' + 'B'.repeat(43) }), 401, 'unauthorized');
  });

  it('a request with a wrong or missing key never reaches the model', async () => {
    const before = server.logText().length;
    await post(imageRequest(images.dogJpeg()), { apiKey: 'dtd_' + 'C'.repeat(43) });
    await post(imageRequest(images.dogJpeg()), { apiKey: '' });
    const lines = server.logText().slice(before).trim().split('\n').map((line) => JSON.parse(line));
    const rejected = lines.filter((line) => line.status === 401);
    expect(rejected).to.have.length(2);
    for (const line of rejected) {
      // Only the gate's own time: no decode, wait or inference stage.
      expect(Object.keys(line.timings_ms ?? {})).to.satisfy((stages: string[]) => stages.every((stage) => stage === 'receive' || stage === 'gate'));
      expect(line).to.not.have.property('model');
    }
  });

  it('403 forbidden: the key of a disabled service', async () => {
    const key = await server.createService({ name: 'to be disabled' });
    expect((await post(imageRequest(await images.onePixelPng()), { apiKey: key })).status).to.equal(200);
    await server.disableService(key);
    expectError(await post(imageRequest(await images.onePixelPng()), { apiKey: key }), 403, 'forbidden');
  });

  it('404 unknown_service and not_found, 405 method_not_allowed', async () => {
    expectError(await post(imageRequest(images.dogJpeg()), { path: '/api/v1/face-recognition' }), 404, 'unknown_service');
    expectError(await post(imageRequest(images.dogJpeg()), { path: '/api/face-recognition' }), 404, 'unknown_service');
    const missing = await fetch(server.url + '/no/such/route');
    expectError({ status: missing.status, headers: missing.headers, body: await missing.json() }, 404, 'not_found');
    const get = await fetch(server.url + '/api/v1/object-detection');
    expectError({ status: get.status, headers: get.headers, body: await get.json() }, 405, 'method_not_allowed');
    expect(get.headers.get('allow')).to.equal('POST');
  });

  it('503 model_unavailable: a service whose model this server did not load is refused, never answered by another model', async () => {
    const key = await server.createService({ name: 'on a model not loaded here', model: 'yolo11n-640-int8' });
    const result = await post(imageRequest(images.dogJpeg()), { apiKey: key });
    expectError(result, 503, 'model_unavailable');
    expect(result.body.error.message).to.contain('yolo11n-640-int8');
    expect((await post(imageRequest(await images.onePixelPng()))).status).to.equal(200);
  });

  it('413 image_too_large: a 20000×20000 PNG is refused from its header', async () => {
    const bomb = await images.hugePng();
    const result = await post(imageRequest(bomb));
    expectError(result, 413, 'image_too_large');
    expect(result.body.error.message).to.contain('20000×20000');
  });

  it('415 unsupported_media_type', async () => {
    expectError(await post(imageRequest(images.dogJpeg()), { contentType: 'text/plain' }), 415, 'unsupported_media_type');
    expectError(await post(imageRequest(images.dogJpeg()), { contentType: 'application/json; charset=latin1' }), 415, 'unsupported_media_type');
    expectError(await post(imageRequest(images.dogJpeg()), { contentType: 'multipart/form-data; boundary=x' }), 400, 'invalid_multipart');
  });
});

describe('limits (server with small limits)', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({
      DETECTD_MAX_BODY_BYTES: String(100 * 1024),
      DETECTD_MAX_IMAGE_PIXELS: String(500 * 500),
      DETECTD_MAX_DETECTIONS: '2',
      DETECTD_MAX_PENDING_REQUESTS: '2',
    });
  });
  after(async () => {
    await server.close();
  });

  it('413 payload_too_large above the body limit', async () => {
    expectError(await postDetection(server.url, imageRequest(images.dogJpeg()), { apiKey: server.apiKey }), 413, 'payload_too_large');
  });

  it('413 image_too_large above the pixel limit', async () => {
    const result = await postDetection(server.url, imageRequest(await images.dogAs("webp")), { apiKey: server.apiKey });
    expectError(result, 413, 'image_too_large');
  });

  it('caps detections per image', async () => {
    const small = await images.smallDogJpeg();
    const { status, body } = await postDetection(server.url, imageRequest(small, { ConfidenceThreshold: '0.01' }), { apiKey: server.apiKey });
    expect(status).to.equal(200);
    expect(body.detected_objects).to.have.length(2);
  });

  it('503 overloaded with Retry-After when more requests are in flight than allowed, then recovers', async () => {
    const small = await images.smallDogJpeg();
    const results = await Promise.all(Array.from({ length: 8 }, () => postDetection(server.url, imageRequest(small), { apiKey: server.apiKey })));
    const shed = results.filter((result) => result.status === 503);
    expect(shed.length).to.be.at.least(1);
    for (const result of shed) {
      expectError(result, 503, 'overloaded');
      expect(result.headers.get('retry-after')).to.equal('1');
    }
    expect(results.filter((result) => result.status === 200).length).to.be.at.least(2);
    expect((await postDetection(server.url, imageRequest(small), { apiKey: server.apiKey })).status).to.equal(200);
  });
});

describe('request deadline', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ DETECTD_REQUEST_TIMEOUT_MS: '100' });
  });
  after(async () => {
    await server.close();
  });

  it('503 deadline_exceeded for requests that wait too long for the model', async () => {
    // Twelve at once on the 2-core VM's two inference workers: the last wait five runs or more, past 100 ms
    // even when a run takes only 20 ms (with six, a fast run let every one in before its deadline).
    const results = await Promise.all(Array.from({ length: 12 }, () => postDetection(server.url, imageRequest(images.dogJpeg()), { apiKey: server.apiKey })));
    const late = results.filter((result) => result.status === 503);
    expect(late.length).to.be.at.least(1);
    for (const result of late) expectError(result, 503, 'deadline_exceeded');
    expect(results.some((result) => result.status === 200)).to.equal(true);
  });
});
