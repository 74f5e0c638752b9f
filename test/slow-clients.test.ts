import net from 'node:net';
import { expect } from 'chai';
import { imageRequest, postDetection } from './support/detection-client.js';
import * as images from './support/images.js';
import { head } from './support/raw-http.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { waitFor } from './support/wait-for.js';

const MAX_PENDING = 4;
const BODY_TIMEOUT_MS = 3_000;
const SLOW_UPLOADERS = 3 * MAX_PENDING;

interface SlowUpload {
  /** Status of the answer, or null when the connection closed without one. */
  readonly status: Promise<number | null>;
  /** What the server sent, once the connection closed. */
  readonly answer: Promise<string>;
  /** When the connection closed, ms after it opened. */
  readonly closedAfterMs: Promise<number>;
}

/** A JSON upload to detectd's own API announcing `announced` bytes, with the key in the header. */
const jsonUploadHead = (apiKey: string, announced: number) =>
  head('POST /api/v1/object-detection HTTP/1.1', { Host: 'x', Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'application/json', 'Content-Length': announced });

const BOUNDARY = 'detectd-slow-form';
/** A DeepStack form upload announcing `announced` bytes; its key in `Authorization`, or in the form's `api_key` field (then sent ahead of the image). */
const deepStackUpload = (apiKey: string, announced: number, keyIn: 'header' | 'field') => ({
  requestHead: head('POST /v1/vision/detection HTTP/1.1', {
    Host: 'x',
    ...(keyIn === 'header' ? { Authorization: `ApiKey ${apiKey}` } : {}),
    'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
    'Content-Length': announced,
  }),
  firstBytes:
    (keyIn === 'field' ? `--${BOUNDARY}\r\nContent-Disposition: form-data; name="api_key"\r\n\r\n${apiKey}\r\n` : '') +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="image"; filename="dog.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
});

/** A client that sends `requestHead` and `firstBytes`, then the rest of the announced body one byte every 200 ms, for ever. */
function slowUpload(port: number, requestHead: string, firstBytes = ''): SlowUpload {
  const socket = net.connect(port, '127.0.0.1');
  const opened = performance.now();
  socket.on('error', () => {});
  socket.once('connect', () => socket.write(requestHead + firstBytes));
  const drip = setInterval(() => socket.writable && socket.write(' '), 200);
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString('latin1')));
  const closedAfterMs = new Promise<number>((resolve) =>
    socket.once('close', () => {
      clearInterval(drip);
      resolve(performance.now() - opened);
    }),
  );
  const answer = closedAfterMs.then(() => received);
  const status = answer.then((text) => (/^HTTP\/1\.1 (\d{3})/.exec(text) ? Number(/^HTTP\/1\.1 (\d{3})/.exec(text)![1]) : null));
  return { status, answer, closedAfterMs };
}

/**
 * A dripped body was cut by the body deadline as configured: the answer names it, and the connection
 * lasted at least that long (a loaded machine only makes it later, so no upper bound is asserted:
 * a body never cut would keep the test waiting until mocha's timeout fails it).
 */
async function expectCutAtDeadline(upload: SlowUpload): Promise<void> {
  expect(await upload.answer).to.contain(`did not arrive within ${BODY_TIMEOUT_MS} ms`);
  expect(await upload.closedAfterMs).to.be.at.least(BODY_TIMEOUT_MS);
}

describe('slow clients cost a bounded time and never starve others', function () {
  this.timeout(120_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ DETECTD_MAX_PENDING_REQUESTS: String(MAX_PENDING), DETECTD_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS) });
  });
  after(async () => {
    await server.close();
  });

  it(`${SLOW_UPLOADERS} slow uploaders (> ${MAX_PENDING} admission slots): normal requests all get 200; the uploaders get 408 request_timeout and are cut at the deadline`, async () => {
    const uploads = Array.from({ length: SLOW_UPLOADERS }, () => slowUpload(server.port, jsonUploadHead(server.apiKey, 100_000)));
    const body = imageRequest(await images.smallDogJpeg());
    const statuses: number[] = [];
    // Sequential normal requests while every slow uploader is mid-body.
    for (let index = 0; index < 2 * MAX_PENDING; index++) statuses.push((await postDetection(server.url, body, { apiKey: server.apiKey })).status);
    expect(statuses.filter((status) => status === 200).length, `statuses ${statuses}`).to.equal(statuses.length);
    const uploaderStatuses = await Promise.all(uploads.map((upload) => upload.status));
    expect(uploaderStatuses).to.deep.equal(Array(SLOW_UPLOADERS).fill(408));
    // Cut at the body deadline plus the lingering close (2 s) and the server's check period, never the 300 s of Node's default.
    await Promise.all(uploads.map(expectCutAtDeadline));
    expect(server.logText()).to.contain('"code":"request_timeout"');
  });

  it('a slow body with a bad key is answered 401 at once and its connection closed', async () => {
    const upload = slowUpload(server.port, jsonUploadHead('wrong-key', 100_000));
    // At once: had it waited for the body, which never ends, the body deadline would have answered 408.
    expect(await upload.status).to.equal(401);
  });

  it('the DeepStack door: a form dripped byte by byte gets 408 request_timeout at the body deadline, its key in the header or in a field', async () => {
    const uploads = (['header', 'field'] as const).map((keyIn) => {
      const { requestHead, firstBytes } = deepStackUpload(server.apiKey, 100_000, keyIn);
      return slowUpload(server.port, requestHead, firstBytes);
    });
    expect(await Promise.all(uploads.map((upload) => upload.status))).to.deep.equal([408, 408]);
    await Promise.all(uploads.map(expectCutAtDeadline));
  });

  it('the DeepStack door: a dripped form whose field holds a bad key is answered 401 at once', async () => {
    const { requestHead, firstBytes } = deepStackUpload('wrong-key', 100_000, 'field');
    const upload = slowUpload(server.port, requestHead, firstBytes + 'JPEG');
    // At once: had it waited for the body, which never ends, the body deadline would have answered 408.
    expect(await upload.status).to.equal(401);
  });

  it('request bodies held at once are bounded by DETECTD_MAX_UPLOAD_BYTES: past it 503 overloaded, small requests still served, the budget comes back', async () => {
    const budgeted = await startTestServer({ DETECTD_MAX_BODY_BYTES: '1000000', DETECTD_MAX_UPLOAD_BYTES: '1000000' });
    try {
      const json = JSON.stringify(imageRequest(await images.onePixelPng()));
      const padding = ' '.repeat(600_000); // JSON allows leading whitespace: a 600 KB valid request
      const holder = net.connect(budgeted.port, '127.0.0.1');
      let holderAnswer = '';
      holder.on('data', (chunk) => (holderAnswer += chunk.toString('latin1')));
      await new Promise((resolve) => holder.once('connect', resolve));
      holder.write(head('POST /api/v1/object-detection HTTP/1.1', { Host: 'x', Authorization: `ApiKey ${budgeted.apiKey}`, 'Content-Type': 'application/json', 'Content-Length': padding.length + json.length, Connection: 'close' }));
      holder.write(padding);
      // Once the server holds the first 600 KB (its gauge says so), a second 600 KB does not fit.
      const held = async () => Number(/^detectd_request_body_bytes_held (\d+)$/m.exec(await (await fetch(budgeted.url + '/metrics')).text())?.[1]);
      await waitFor(async () => (await held()) >= padding.length, { what: 'the server to hold the first 600 KB' });
      const second = await postDetection(budgeted.url, padding + json, { apiKey: budgeted.apiKey });
      expect(second.status).to.equal(503);
      expect(second.body.error.code).to.equal('overloaded');
      expect(second.headers.get('retry-after')).to.equal('1');
      expect((await postDetection(budgeted.url, json, { apiKey: budgeted.apiKey })).status, 'a small request fits').to.equal(200);
      holder.write(json);
      await new Promise((resolve) => holder.once('close', resolve));
      expect(holderAnswer).to.match(/^HTTP\/1\.1 200 /);
      expect((await postDetection(budgeted.url, padding + json, { apiKey: budgeted.apiKey })).status, 'the budget came back').to.equal(200);
    } finally {
      await budgeted.close();
    }
  });

  it('the DeepStack door: a form answered early (a bad key in a field) holds none of the upload budget once answered, however much more arrives', async () => {
    const { requestHead, firstBytes } = deepStackUpload('wrong-key', 2_000_000, 'field');
    const socket = net.connect(server.port, '127.0.0.1');
    socket.on('error', () => {});
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(requestHead + firstBytes + 'JPEG');
    await waitFor(() => /^HTTP\/1\.1 401 /.test(received), { what: 'the 401' });
    // The client goes on sending its image after the answer, as clients do until they read it.
    for (let sent = 0; sent < 1_000_000 && socket.writable; sent += 100_000) socket.write(Buffer.alloc(100_000, 0x41));
    // The server closes the connection after its short linger; by then nothing of the body is held.
    await new Promise((resolve) => (socket.destroyed ? resolve(undefined) : socket.once('close', resolve)));
    const held = Number(/^detectd_request_body_bytes_held (\d+)$/m.exec(await (await fetch(server.url + '/metrics')).text())?.[1]);
    expect(held).to.equal(0);
  });

  it('the DeepStack door holds its forms in the same budget: a form past it gets 503 in DeepStack\'s shape, with Retry-After', async () => {
    const budgeted = await startTestServer({ DETECTD_MAX_BODY_BYTES: '1000000', DETECTD_MAX_UPLOAD_BYTES: '1000000' });
    try {
      const holder = net.connect(budgeted.port, '127.0.0.1');
      holder.on('error', () => {});
      await new Promise((resolve) => holder.once('connect', resolve));
      holder.write(jsonUploadHead(budgeted.apiKey, 700_000) + ' '.repeat(600_000));
      const held = async () => Number(/^detectd_request_body_bytes_held (\d+)$/m.exec(await (await fetch(budgeted.url + '/metrics')).text())?.[1]);
      await waitFor(async () => (await held()) >= 600_000, { what: 'the server to hold the first 600 KB' });
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(600_000)], { type: 'image/jpeg' }), 'big.jpg');
      const refused = await fetch(`${budgeted.url}/v1/vision/detection`, { method: 'POST', headers: { Authorization: `ApiKey ${budgeted.apiKey}` }, body: form });
      expect(refused.status).to.equal(503);
      expect(refused.headers.get('retry-after')).to.equal('1');
      expect(await refused.json()).to.include({ success: false, code: 503 });
      holder.destroy();
    } finally {
      await budgeted.close();
    }
  });

  it('a client that sends half a request head is cut at the headers deadline', async () => {
    const slowHead = await startTestServer({ DETECTD_HEADERS_TIMEOUT_MS: '1000' });
    try {
      const socket = net.connect(slowHead.port, '127.0.0.1');
      socket.on('error', () => {});
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      socket.once('connect', () => socket.write('POST /api/v1/object-detection HTTP/1.1\r\nHost: x\r\n'));
      const drip = setInterval(() => socket.writable && socket.write('X-A: b\r\n'), 200);
      await new Promise((resolve) => socket.once('close', resolve));
      clearInterval(drip);
      expect(received).to.match(/^HTTP\/1\.1 408 /);
      expect(received).to.contain('"code":"request_timeout"');
    } finally {
      await slowHead.close();
    }
  });
});
