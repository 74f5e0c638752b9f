import zlib from 'node:zlib';
import { expect } from 'chai';
import sharp from 'sharp';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { ConsoleClient } from './support/console-client.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import * as images from './support/images.js';
import { head, type RawResponse, rawExchange } from './support/raw-http.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const MAX_BODY_BYTES = 2_000_000;
const schemas = new SchemaCatalogue();

function expectJsonError(response: RawResponse, status: number, code: string): void {
  expect(response.status, JSON.stringify(response.body)).to.equal(status);
  expect(response.body?.error?.code, JSON.stringify(response.body)).to.equal(code);
  expect(schemas.check('error-response', response.body)).to.deep.equal({ ok: true });
  expect(response.body.error.message).to.be.a('string').and.not.match(/\n\s+at /);
}

function expectPage(response: RawResponse, status: number, text: string): void {
  expect(response.status, String(response.body).slice(0, 300)).to.equal(status);
  expect(response.headers['content-type']).to.match(/^text\/html/);
  expect(response.body).to.contain(text);
}

/** A progressive JPEG whose last scan is repeated `scans` times: refused from its markers, never decoded. */
async function scanBombJpeg(scans: number): Promise<Buffer> {
  const small = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#884422' } }).jpeg({ progressive: true }).toBuffer();
  const lastScan = small.lastIndexOf(Buffer.from([0xff, 0xda]));
  const scan = small.subarray(lastScan, small.length - 2);
  return Buffer.concat([small.subarray(0, small.length - 2), ...Array<Buffer>(scans).fill(scan), Buffer.from([0xff, 0xd9])]);
}

describe('hostile input: precise 4xx answers, never a 500, and the next request works', function () {
  this.timeout(60_000);
  let server: TestServer;
  let json: Buffer;
  const api = (extra: Record<string, string | number> = {}, body: Buffer = json, path = '/api/v1/object-detection') => [
    head(`POST ${path} HTTP/1.1`, { Host: 'localhost', Authorization: `ApiKey ${server.apiKey}`, 'Content-Type': 'application/json', 'Content-Length': body.length, ...extra }),
    body,
  ];

  before(async () => {
    server = await startTestServer({ DETECTD_MAX_BODY_BYTES: String(MAX_BODY_BYTES), DETECTD_BODY_TIMEOUT_MS: '3000', DETECTD_SIGNUP: 'open' });
    json = Buffer.from(JSON.stringify(imageRequest(await images.onePixelPng())));
  });
  after(async () => {
    expect(server.logText(), 'no request was a bug').to.not.contain('"code":"internal_error"');
    await server.close();
  });
  afterEach(async () => {
    const healthy = await postDetection(server.url, imageRequest(await images.onePixelPng()), { apiKey: server.apiKey });
    expect(healthy.status, 'the next request works').to.equal(200);
  });

  describe('paths', () => {
    for (const path of ['/api/v1/object-detection%', '/api/v1/%zz', '/api/object-detection%E0%A4%A', '/api/%']) {
      it(`400 invalid_path: POST ${path}`, async () => {
        expectJsonError(await rawExchange(server.port, api({}, json, path)), 400, 'invalid_path');
      });
    }
    it('400 invalid_path: GET with a bad escape', async () => {
      expectJsonError(await rawExchange(server.port, [head('GET /api/v1/object-detection%zz HTTP/1.1', { Host: 'x' })]), 400, 'invalid_path');
    });
  });

  describe('Content-Encoding', () => {
    for (const [coding, compress] of [
      ['gzip', zlib.gzipSync],
      ['deflate', zlib.deflateSync],
      ['br', zlib.brotliCompressSync],
    ] as const) {
      it(`200 for a ${coding} body`, async () => {
        const response = await rawExchange(server.port, api({ 'Content-Encoding': coding }, compress(json)));
        expect(response.status, JSON.stringify(response.body)).to.equal(200);
        expect(response.body.detected_objects).to.be.an('array');
      });
      it(`400 invalid_encoding: corrupt, truncated and not-compressed ${coding} bodies`, async () => {
        const compressed = compress(json);
        const corrupt = Buffer.from(compressed);
        corrupt.fill(0x5a, 10, 40);
        for (const body of [corrupt, compressed.subarray(0, compressed.length >> 1), json]) {
          expectJsonError(await rawExchange(server.port, api({ 'Content-Encoding': coding }, body)), 400, 'invalid_encoding');
        }
      });
    }
    it('413 payload_too_large: a gzip bomb stops at the limit on the inflated size', async () => {
      const bomb = zlib.gzipSync(Buffer.alloc(50 * MAX_BODY_BYTES, 0x20));
      expect(bomb.length).to.be.below(MAX_BODY_BYTES);
      expectJsonError(await rawExchange(server.port, api({ 'Content-Encoding': 'gzip' }, bomb)), 413, 'payload_too_large');
    });
    for (const coding of ['compress', 'gzip, br', 'zstd', 'x-unknown']) {
      it(`415 unsupported_content_encoding: ${coding}`, async () => {
        expectJsonError(await rawExchange(server.port, api({ 'Content-Encoding': coding })), 415, 'unsupported_content_encoding');
      });
    }
    it('415 unsupported_media_type: a charset other than UTF-8', async () => {
      expectJsonError(await rawExchange(server.port, api({ 'Content-Type': 'application/json; charset=iso-8859-1' })), 415, 'unsupported_media_type');
    });
  });

  describe('HTTP framing', () => {
    it('413 from the header alone: Content-Length over the limit, no body sent, connection closed', async () => {
      const response = await rawExchange(server.port, [head('POST /api/v1/object-detection HTTP/1.1', { Host: 'x', Authorization: `ApiKey ${server.apiKey}`, 'Content-Type': 'application/json', 'Content-Length': 30_000_000 })], { closeWithinMs: 5_000 });
      expectJsonError(response, 413, 'payload_too_large');
      expect(response.closed).to.equal(true);
    });
    it('Expect: 100-continue: 100 only for an authenticated request within the limit', async () => {
      const good = await rawExchange(server.port, [api({ Expect: '100-continue' })[0], 'await-100', json]);
      expect(good.continued).to.equal(true);
      expect(good.status).to.equal(200);
      const badKey = await rawExchange(server.port, [head('POST /api/v1/object-detection HTTP/1.1', { Host: 'x', Authorization: 'ApiKey wrong', 'Content-Type': 'application/json', 'Content-Length': json.length, Expect: '100-continue' })], { closeWithinMs: 5_000 });
      expectJsonError(badKey, 401, 'unauthorized');
      expect(badKey.continued).to.equal(false);
      expect(badKey.closed).to.equal(true);
      const tooLarge = await rawExchange(server.port, [api({ Expect: '100-continue', 'Content-Length': 30_000_000 })[0]]);
      expectJsonError(tooLarge, 413, 'payload_too_large');
      expect(tooLarge.continued).to.equal(false);
    });
    it('417 expectation_failed for another Expect', async () => {
      expectJsonError(await rawExchange(server.port, api({ Expect: 'something-else' })), 417, 'expectation_failed');
    });
    it('431 headers_too_large: too many headers, even when Node would have cut Content-Length off', async () => {
      const many = (count: number) => Array.from({ length: count }, (_, index) => `X-Filler-${index}: ${index}\r\n`);
      expectJsonError(await rawExchange(server.port, [head('POST /api/v1/object-detection HTTP/1.1', { Host: 'x', Authorization: `ApiKey ${server.apiKey}`, 'Content-Type': 'application/json', 'Content-Length': json.length }, many(150)), json]), 431, 'headers_too_large');
      const cut = `POST /api/v1/object-detection HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey ${server.apiKey}\r\nContent-Type: application/json\r\n${many(1000).join('')}Content-Length: ${json.length}\r\n\r\n`;
      expectJsonError(await rawExchange(server.port, [cut, json]), 431, 'headers_too_large');
    });
    it('431 headers_too_large: headers over 16 KiB', async () => {
      expectJsonError(await rawExchange(server.port, [head('GET /healthz HTTP/1.1', { Host: 'x', 'X-Big': 'a'.repeat(20_000) })], { closeWithinMs: 3_000 }), 431, 'headers_too_large');
    });
    const malformed: Record<string, string> = {
      'a garbage request line': 'HELLO THERE\r\n\r\n',
      'Content-Length with Transfer-Encoding (smuggling shape)': `POST /api/v1/object-detection HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      'two different Content-Lengths': `POST /api/v1/object-detection HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcde`,
      'a non-numeric Content-Length': `POST /api/v1/object-detection HTTP/1.1\r\nHost: x\r\nContent-Length: 1e3\r\n\r\n`,
      'a space before the colon': `GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n`,
      'a bare LF in a header value': `GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: b\nc\r\n\r\n`,
      'an obsolete line folding': `GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: b\r\n c\r\n\r\n`,
      'an unknown HTTP version': 'GET /healthz HTTP/7.1\r\nHost: x\r\n\r\n',
      'Transfer-Encoding other than chunked': `POST /api/v1/object-detection HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n`,
    };
    for (const [name, request] of Object.entries(malformed)) {
      it(`400 invalid_http: ${name}`, async () => {
        const response = await rawExchange(server.port, [request], { closeWithinMs: 3_000 });
        expectJsonError(response, 400, 'invalid_http');
        expect(response.closed).to.equal(true);
        expect(server.logText(), 'the request id finds the log line').to.contain(response.body.error.request_id);
      });
    }
    it('400 invalid_http: a bad chunk size in the body, after the route started reading', async () => {
      // The route writes 100 Continue as it starts reading: the bad chunk is sent only then.
      const start = head('POST /api/v1/object-detection HTTP/1.1', { Host: 'x', Authorization: `ApiKey ${server.apiKey}`, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', Expect: '100-continue' });
      const response = await rawExchange(server.port, [start, 'await-100', '5\r\n{"raw\r\nzz\r\n']);
      expect(response.continued, 'the route started reading the body').to.equal(true);
      expectJsonError(response, 400, 'invalid_http');
    });
    it('200 for a chunked body', async () => {
      const start = head('POST /api/v1/object-detection HTTP/1.1', { Host: 'x', Authorization: `ApiKey ${server.apiKey}`, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      const half = json.length >> 1;
      const chunk = (part: Buffer) => Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]);
      const response = await rawExchange(server.port, [start, chunk(json.subarray(0, half)), chunk(json.subarray(half)), '0\r\n\r\n']);
      expect(response.status).to.equal(200);
    });
    it('413 payload_too_large for a chunked body past the limit, connection closed', async () => {
      const start = head('POST /api/v1/object-detection HTTP/1.1', { Host: 'x', Authorization: `ApiKey ${server.apiKey}`, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      const big = Buffer.alloc(MAX_BODY_BYTES + 10, 0x20);
      const response = await rawExchange(server.port, [start, Buffer.concat([Buffer.from(`${big.length.toString(16)}\r\n`), big, Buffer.from('\r\n0\r\n\r\n')])], { closeWithinMs: 5_000 });
      expectJsonError(response, 413, 'payload_too_large');
      expect(response.closed).to.equal(true);
    });
    it('400 invalid_json: an empty body and a body of NULs', async () => {
      expectJsonError(await rawExchange(server.port, api({}, Buffer.alloc(0))), 400, 'invalid_json');
      expectJsonError(await rawExchange(server.port, api({}, Buffer.alloc(64))), 400, 'invalid_json');
    });
  });

  describe('image bombs', () => {
    it('422 image_too_complex: a progressive JPEG with 400 scans, refused before decoding', async () => {
      const bomb = await scanBombJpeg(400);
      const response = await postDetection(server.url, imageRequest(bomb), { apiKey: server.apiKey });
      expect(response.status, JSON.stringify(response.body)).to.equal(422);
      expect(response.body.error.code).to.equal('image_too_complex');
    });
    it('200 for an ordinary progressive JPEG', async () => {
      const progressive = await sharp(images.dogJpeg()).jpeg({ progressive: true }).toBuffer();
      expect((await postDetection(server.url, imageRequest(progressive), { apiKey: server.apiKey })).status).to.equal(200);
    });
  });

  describe('console', () => {
    const form = (path: string, body: Buffer | string, headers: Record<string, string | number> = {}) => [
      head(`POST ${path} HTTP/1.1`, { Host: 'x', 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(body), ...headers }),
      body,
    ];
    it('400 page for a malformed percent-escape in a service id (signed in)', async () => {
      const client = new ConsoleClient(server.url);
      expect((await client.signUp('hostile@example.com', 'correct horse battery staple')).status).to.equal(303);
      const Cookie = ['detectd_session', 'detectd_csrf'].map((name) => `${name}=${client.cookie(name)}`).join('; ');
      for (const path of ['/console/services/%zz', '/console/services/%E0%A4%A/rotate', '/console/services/x/keys/%/revoke']) {
        const method = path.endsWith('services/%zz') ? 'GET' : 'POST';
        expectPage(await rawExchange(server.port, [head(`${method} ${path} HTTP/1.1`, { Host: 'x', Cookie, 'X-CSRF-Token': client.csrfToken, 'Content-Length': 0 })]), 400, 'malformed percent-escape');
      }
    });
    it('413 page for a form with many fields', async () => {
      const fields = Array.from({ length: 1000 }, (_, index) => `f${index}=1`).join('&');
      expectPage(await rawExchange(server.port, form('/console/sign-in', fields)), 413, 'at most 20 fields');
    });
    it('413 page for a form over 16 KiB, from its Content-Length', async () => {
      expectPage(await rawExchange(server.port, [form('/console/sign-in', '', { 'Content-Length': 1_000_000 })[0]], { closeWithinMs: 5_000 }), 413, 'exceeds the body limit');
    });
    it('400 page for a corrupt gzip form; 415 page for an unknown encoding', async () => {
      expectPage(await rawExchange(server.port, form('/console/sign-in', Buffer.from('not gzip'), { 'Content-Encoding': 'gzip' })), 400, 'not valid gzip');
      expectPage(await rawExchange(server.port, form('/console/sign-in', 'a=1', { 'Content-Encoding': 'compress' })), 415, 'not accepted');
    });
    it('JSON for the page scripts (Accept: application/json)', async () => {
      expectJsonError(await rawExchange(server.port, form('/console/sign-in', Buffer.from('x'), { 'Content-Encoding': 'gzip', Accept: 'application/json' })), 400, 'invalid_encoding');
    });
    it('a gzip form is read like a plain one (then refused by CSRF, 403)', async () => {
      expectPage(await rawExchange(server.port, form('/console/sign-in', zlib.gzipSync('email=a%40b.c&password=x'), { 'Content-Encoding': 'gzip' })), 403, 'expired');
    });
  });

  describe('WebSocket handshake', () => {
    const upgrade = (path: string, headers: Record<string, string>) =>
      head(`GET ${path} HTTP/1.1`, { Host: 'x', Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers });
    it('401 unauthorized without a key or with a bad token', async () => {
      expectJsonError(await rawExchange(server.port, [upgrade('/api/v1/object-detection/stream', {})]), 401, 'unauthorized');
      expectJsonError(await rawExchange(server.port, [upgrade('/api/v1/object-detection/stream?token=%zz', {})]), 401, 'unauthorized');
    });
    it('404 not_found for an upgrade elsewhere (the REST path is the Nvision stream), bad escapes included', async () => {
      for (const path of ['/', '/api/v1/object-detection/elsewhere', '/api/v1/object-detection/stream%zz']) {
        expectJsonError(await rawExchange(server.port, [upgrade(path, { Authorization: `ApiKey ${server.apiKey}` })]), 404, 'not_found');
      }
    });
    it('431 headers_too_large for an upgrade with more headers than any request may have, the key among them', async () => {
      const filler = Object.fromEntries(Array.from({ length: 150 }, (_, index) => [`X-Filler-${index}`, String(index)]));
      expectJsonError(await rawExchange(server.port, [upgrade('/api/v1/object-detection/stream', { ...filler, Authorization: `ApiKey ${server.apiKey}` })]), 431, 'headers_too_large');
    });
    it('400 for a broken handshake with a good key (no or bad Sec-WebSocket-Key, wrong version)', async () => {
      const auth = { Authorization: `ApiKey ${server.apiKey}` };
      const broken: Record<string, string>[] = [{ 'Sec-WebSocket-Key': '' }, { 'Sec-WebSocket-Key': 'short' }, { 'Sec-WebSocket-Version': '7' }];
      for (const headers of broken) {
        const response = await rawExchange(server.port, [upgrade('/api/v1/object-detection/stream', { ...auth, ...headers })], { closeWithinMs: 3_000 });
        expect(response.status).to.equal(400);
        expect(response.closed).to.equal(true);
      }
    });
    it('426 upgrade_required for the stream URL without Upgrade', async () => {
      expectJsonError(await rawExchange(server.port, [head('GET /api/v1/object-detection/stream HTTP/1.1', { Host: 'x', Authorization: `ApiKey ${server.apiKey}` })]), 426, 'upgrade_required');
    });
  });

  describe('the DeepStack door (its forms pass the same bounded reader)', () => {
    const BOUNDARY = 'detectd-hostile-form';
    let form: Buffer;
    before(async () => {
      form = Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="api_key"\r\n\r\n${server.apiKey}\r\n` +
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="image"; filename="one.png"\r\nContent-Type: image/png\r\n\r\n`,
      );
      form = Buffer.concat([form, await images.onePixelPng(), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
    });
    const deepStack = (extra: Record<string, string | number> = {}, body: Buffer = form) => [
      head('POST /v1/vision/detection HTTP/1.1', { Host: 'localhost', 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': body.length, ...extra }),
      body,
    ];
    /** DeepStack's failure shape, with the status detectd's catalogue gives the code. */
    function expectDeepStackError(response: RawResponse, status: number): void {
      expect(response.status, JSON.stringify(response.body)).to.equal(status);
      expect(response.body).to.include({ success: false, code: status, duration: 0 });
      expect(response.body.error).to.be.a('string').and.not.match(/\n\s+at /);
    }

    it('413 from the header alone: a form declaring more than the limit, no body sent, answered at once and closed', async () => {
      const response = await rawExchange(server.port, [head('POST /v1/vision/detection HTTP/1.1', { Host: 'x', 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': 209_715_200 })], { answerWithinMs: 2_000, closeWithinMs: 5_000 });
      expectDeepStackError(response, 413);
      expect(response.closed).to.equal(true);
    });
    for (const [coding, compress] of [
      ['gzip', zlib.gzipSync],
      ['deflate', zlib.deflateSync],
      ['br', zlib.brotliCompressSync],
    ] as const) {
      it(`200 for a ${coding} form; 400 for a corrupt one`, async () => {
        const answered = await rawExchange(server.port, deepStack({ 'Content-Encoding': coding }, compress(form)));
        expect(answered.status, JSON.stringify(answered.body)).to.equal(200);
        expect(answered.body).to.include({ success: true });
        const corrupt = Buffer.from(compress(form));
        corrupt.fill(0x5a, 10, 40);
        expectDeepStackError(await rawExchange(server.port, deepStack({ 'Content-Encoding': coding }, corrupt)), 400);
      });
    }
    it('413 for a gzip bomb form, stopped at the limit on the inflated size; 415 for an unknown encoding', async () => {
      const bomb = zlib.gzipSync(Buffer.concat([form.subarray(0, form.indexOf('\r\n\r\n', form.indexOf('name="image"')) + 4), Buffer.alloc(50 * MAX_BODY_BYTES, 0x20)]));
      expect(bomb.length).to.be.below(MAX_BODY_BYTES);
      expectDeepStackError(await rawExchange(server.port, deepStack({ 'Content-Encoding': 'gzip' }, bomb)), 413);
      expectDeepStackError(await rawExchange(server.port, deepStack({ 'Content-Encoding': 'zstd' })), 415);
    });
    it('400 for a form without a boundary, refused before its body has arrived, and the server lives on', async () => {
      // The answer goes out (and closes the connection) while the body still streams in: the bounded
      // reader then fails a body stream nobody reads any more.
      const unframed = Buffer.alloc(MAX_BODY_BYTES - 1, 0x61);
      expectDeepStackError(await rawExchange(server.port, deepStack({ 'Content-Type': 'multipart/form-data' }, unframed)), 400);
      expectDeepStackError(await rawExchange(server.port, deepStack({ 'Content-Type': 'multipart/form-data', Authorization: `ApiKey ${server.apiKey}` }, unframed)), 400);
    });
    it('Expect: 100-continue: 100 only once a key in the header is let in and the size is within the limit', async () => {
      const keyed = { Authorization: `ApiKey ${server.apiKey}`, Expect: '100-continue' };
      const good = await rawExchange(server.port, [deepStack(keyed)[0], 'await-100', form]);
      expect(good.continued).to.equal(true);
      expect(good.status).to.equal(200);
      const badKey = await rawExchange(server.port, [deepStack({ ...keyed, Authorization: 'ApiKey wrong' })[0]], { closeWithinMs: 5_000 });
      expectDeepStackError(badKey, 401);
      expect(badKey.continued).to.equal(false);
      const tooLarge = await rawExchange(server.port, [deepStack({ ...keyed, 'Content-Length': 30_000_000 })[0]]);
      expectDeepStackError(tooLarge, 413);
      expect(tooLarge.continued).to.equal(false);
    });
  });
});
