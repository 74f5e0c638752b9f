import { expect } from 'chai';
import sharp from 'sharp';
import { CLIP_FPS, CLIP_SIZE, makePanClip, type PanClip } from '../scripts/lib/pan-clip.js';
import { type Message, refusedUpgrade, StreamClient, streamUrl } from '../scripts/lib/stream-client.js';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { UsageStore } from '../src/usage/usage-store.js';
import { postDetection } from './support/detection-client.js';
import { modelPath, photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { waitFor } from './support/wait-for.js';

const schemas = new SchemaCatalogue();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where the dog of dog.jpg is (x1, y1, x2, y2), from the reference pipeline. */
const DOG_IN_PHOTO = [133, 220, 309, 545];

/** The pan's crop offset at frame `index` (0-based), as the ffmpeg expression in pan-clip.ts computes it. */
const panOffset = (index: number, frames: number) => {
  const phase = 1 - Math.cos((2 * Math.PI * index) / frames);
  return { x: 64 * phase, y: 48 * phase };
};

type Box = { left: number; top: number; right: number; bottom: number };
function boxIou(a: Box, b: Box): number {
  const overlap = Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const area = (box: Box) => (box.right - box.left) * (box.bottom - box.top);
  return overlap / (area(a) + area(b) - overlap);
}

interface StreamClosedLine {
  readonly frames_processed: number;
  readonly frames_dropped: number;
  readonly frames_cancelled: number;
  readonly frame_errors: number;
}

/** The "stream closed" log line of the (one) stream of service `serviceId`, once written. */
function streamClosedLine(logText: string, serviceId: string): StreamClosedLine | undefined {
  return logText
    .split('\n')
    .filter((line) => line.includes('"msg":"stream closed"'))
    .map((line) => JSON.parse(line) as StreamClosedLine & { service_id: string })
    .find((line) => line.service_id === serviceId);
}

function expectValidMessage(message: Message): void {
  expect(schemas.check('stream-server-message', message), JSON.stringify(message).slice(0, 300)).to.deep.equal({ ok: true });
}

/** Sends each frame at its time on a `fps` clock, as a camera would, however slowly the server answers. */
async function sendAtFrameRate(client: StreamClient, frames: Buffer[], fps: number): Promise<void> {
  const started = performance.now();
  for (const [index, frame] of frames.entries()) {
    const due = started + (index * 1000) / fps;
    if (due > performance.now()) await sleep(due - performance.now());
    client.sendFrame(frame, index + 1);
  }
}

describe('video stream over WebSocket (real server, real model, real client)', () => {
  let server: TestServer;
  let clip: PanClip;

  before(async () => {
    [server, clip] = await Promise.all([startTestServer(), makePanClip(photoPath('dog.jpg'))]);
  });
  after(async () => {
    await server?.close();
    clip?.remove();
  });

  it('analyses a 30 fps pan in order, every frame analysed or reported dropped, the newest always analysed, the dog keeps its track id while its boxes overlap', async () => {
    const client = await StreamClient.start(server.url, server.apiKey);
    const total = clip.frames.length;
    await sendAtFrameRate(client, clip.frames, CLIP_FPS);
    await client.waitFor((messages) => messages.some((message) => message.frame_id === total));
    await client.close();

    const [ready, ...rest] = client.messages;
    expect(ready).to.include({ type: 'ready', model: 'yolo26n-640-int8' });
    expectValidMessage(ready);
    const results = rest.filter((message) => message.type === 'result');
    expect(results.length, 'only results').to.equal(rest.length);
    results.forEach(expectValidMessage);

    // In order, and every frame either analysed or reported dropped: none is analysed late.
    let previous = 0;
    for (const result of results) {
      expect(result.frame_id).to.be.greaterThan(previous);
      expect(result.sequence).to.equal(result.frame_id);
      expect(result.dropped, `frame ${result.frame_id}`).to.equal(result.frame_id - previous - 1);
      previous = result.frame_id;
    }
    // How many frames a machine drops depends on its speed; that none is lost does not (the
    // latest-frame rule itself is proven with a held model in stream-engine.test.ts).
    const dropped = results.reduce((sum, result) => sum + result.dropped, 0);
    expect(results.length + dropped).to.equal(total);
    expect(results.at(-1)!.frame_id, 'the newest frame is always analysed').to.equal(total);

    const service = (await server.domain.keys.authenticate(server.apiKey))!;
    expect(ready.service_id).to.equal(service.id);
    for (const result of results) {
      expect(result).to.include({ ...CLIP_SIZE, service_id: service.id });
      // Every stage is reported, and the stages are disjoint parts of the frame's total (each rounded to 0.01 ms).
      const { total: frameTotal, ...stages } = result.timings;
      expect(Object.keys(stages)).to.have.members(['wait', 'decode', 'preprocess', 'inference', 'postprocess', 'tracking', 'encode']);
      expect(Object.values(stages).every((ms) => (ms as number) >= 0)).to.equal(true);
      expect(Object.values(stages).reduce((a: number, b) => a + (b as number), 0)).to.be.at.most(frameTotal + 0.07);
    }
    // The dog is found in (nearly) every frame, where the pan put it, always as the same track.
    const dogs = results.map((result) => result.detected_objects.find((object: Message) => object.name === 'dog' && object.confidence >= 0.5));
    expect(dogs.filter(Boolean).length).to.be.at.least(Math.ceil(results.length * 0.9));
    // The dog keeps its track id from one analysed frame to the next wherever its boxes overlap; how far
    // apart analysed frames are (and so whether they overlap) depends on the machine's speed.
    const trackPerFrame = JSON.stringify(dogs.map((dog, index) => [results[index].frame_id, dog?.track_id]));
    for (let index = 1; index < dogs.length; index++) {
      const [previous, current] = [dogs[index - 1], dogs[index]];
      if (previous && current && boxIou(previous.bounding_box, current.bounding_box) >= 0.5) {
        expect(current.track_id, `dog track ids by frame: ${trackPerFrame}`).to.equal(previous.track_id);
      }
    }
    results.forEach((result, index) => {
      const dog = dogs[index];
      if (!dog) return;
      const offset = panOffset(result.frame_id - 1, total);
      expect(dog.bounding_box.left, `dog's left edge in frame ${result.frame_id}`).to.be.closeTo(DOG_IN_PHOTO[0] - offset.x, 15);
      expect(dog.bounding_box.top, `dog's top edge in frame ${result.frame_id}`).to.be.closeTo(DOG_IN_PHOTO[1] - offset.y, 15);
    });
    // Other objects get their own ids.
    const bicycle = results.at(-1)!.detected_objects.find((object: Message) => object.name === 'bicycle');
    expect(bicycle?.track_id).to.be.a('number').and.not.equal(dogs.find(Boolean).track_id);
  });

  it('answers a garbage frame with an error for that frame and goes on with the next, counting every frame in usage', async () => {
    const apiKey = await server.createService({ name: 'usage of one stream' });
    const client = await StreamClient.start(server.url, apiKey);
    client.sendFrame(Buffer.from('this is not an image at all'), 'garbage');
    await client.waitFor((messages) => messages.some((message) => message.frame_id === 'garbage'));
    client.sendJson({ type: 'frame', frame_id: 'bad-base64', raw_data: '%%%not base64%%%' });
    await client.waitFor((messages) => messages.some((message) => message.frame_id === 'bad-base64'));
    client.sendJson({ type: 'frame', frame_id: 'json', raw_data: clip.frames[0].toString('base64') });
    await client.waitFor((messages) => messages.some((message) => message.frame_id === 'json'));
    client.sendFrame(clip.frames[1]);
    await client.waitFor((messages) => messages.some((message) => message.frame_id === 4));
    await client.close();

    const byId = new Map(client.messages.map((message) => [message.frame_id, message]));
    for (const message of byId.values()) expectValidMessage(message);
    expect(byId.get('garbage')).to.deep.include({ type: 'error' });
    expect(byId.get('garbage')!.error.code).to.equal('invalid_image');
    expect(byId.get('bad-base64')!.error.code).to.equal('invalid_base64');
    const ready = client.messages[0];
    expect(byId.get('garbage')!.error.request_id).to.equal(ready.stream_id);
    // A JSON (base64) frame and a binary frame without a header (named by its sequence number) both work.
    expect(byId.get('json')).to.include({ type: 'result', sequence: 3 });
    expect(byId.get(4)).to.include({ type: 'result', sequence: 4 });
    expect(byId.get(4)!.detected_objects.map((object: Message) => object.name)).to.include('dog');

    // Every analysed frame, good or bad, counts in the service's usage (shown on its console page),
    // once the recorder's flusher (every second) has written it.
    const service = (await server.domain.keys.authenticate(apiKey))!;
    const store = new UsageStore(server.db);
    const usage = await waitFor(async () => {
      const summary = await store.summary(service.id, 'hour');
      return summary.requests >= 4 && summary;
    }, { what: 'four frames in the usage store' });
    expect(usage).to.deep.include({ requests: 4, images: 2, errors: 2, errorsByCode: { invalid_image: 1, invalid_base64: 1 } });
    expect(usage.detections).to.be.at.least(3);
  });

  it('counts no error when the client closes a stream with frames in work (the demo\'s Stop)', async () => {
    const apiKey = await server.createService({ name: 'stopped stream' });
    const service = (await server.domain.keys.authenticate(apiKey))!;
    const client = await StreamClient.start(server.url, apiKey);
    client.sendFrame(clip.frames[0], 1);
    await client.waitFor((messages) => messages.some((message) => message.frame_id === 1));
    for (let index = 2; index <= 6; index++) client.sendFrame(clip.frames[index], index);
    await client.close(); // at once: frames are still waiting or in work
    // Once the stream has closed its log line says how many frames it analysed; the usage flusher
    // (every second) then writes exactly those, and no error.
    const closed = await waitFor(() => streamClosedLine(server.logText(), service.id), { what: 'the "stream closed" log line' });
    expect(closed.frame_errors).to.equal(0);
    expect(closed.frames_processed, 'the first frame was answered').to.be.within(1, 6);
    expect(closed.frames_processed + closed.frames_cancelled + closed.frames_dropped, 'every frame sent has one fate').to.equal(6);
    const store = new UsageStore(server.db);
    const usage = await waitFor(async () => {
      const summary = await store.summary(service.id, 'hour');
      return summary.requests >= closed.frames_processed && summary;
    }, { what: `${closed.frames_processed} analysed frame(s) in the usage store` });
    expect(usage.requests, 'only frames analysed are counted').to.equal(closed.frames_processed);
    expect(usage.errors, JSON.stringify(usage.errorsByCode)).to.equal(0);
  });

  it('returns the visualized frame and crops when asked, with the image API\'s parameters', async () => {
    const client = await StreamClient.start(server.url, server.apiKey, { OutputVisualizedImage: 'true', OutputCroppedImage: 'true', ConfidenceThreshold: '0.5' });
    client.sendFrame(clip.frames[0], 1);
    const [, result] = await client.waitFor((messages) => messages.length === 2);
    await client.close();
    expectValidMessage(result);
    expect(result).to.not.have.property('visualized_image');
    const visualized = await sharp(Buffer.from(result.raw_data, 'base64')).metadata();
    expect(visualized).to.include({ format: 'jpeg', ...CLIP_SIZE });
    for (const object of result.detected_objects) {
      expect(object.confidence).to.be.at.least(0.5);
      const crop = await sharp(Buffer.from(object.cropped_image, 'base64')).metadata();
      expect(crop.width).to.equal(object.bounding_box.right - object.bounding_box.left);
    }
  });

  it('keeps only the target_classes named in "start", and refuses an unknown class name with the valid ones listed', async () => {
    const client = await StreamClient.open(streamUrl(server.url), { headers: { Authorization: `ApiKey ${server.apiKey}` } });
    client.sendJson({ type: 'start', target_classes: ['dog'], configurations: [{ parameter: 'ConfidenceThreshold', value: '0.2' }] });
    client.sendFrame(clip.frames[0], 1);
    const [, result] = await client.waitFor((messages) => messages.length === 2);
    await client.close();
    expectValidMessage(result);
    expect(result.detected_objects.map((object: { name: string }) => object.name)).to.deep.equal(['dog']);

    const unknown = await StreamClient.open(streamUrl(server.url), { headers: { Authorization: `ApiKey ${server.apiKey}` } });
    unknown.sendJson({ type: 'start', target_classes: ['unicorn'] });
    const { code } = await unknown.closed;
    expect(code).to.equal(4400);
    const error = unknown.messages.at(-1)!.error;
    expect(error.code).to.equal('invalid_request');
    expect(error.message).to.contain('"unicorn"').and.contain('dog');
  });

  it('refuses a missing, wrong or disabled key with an HTTP error before upgrading', async () => {
    const url = streamUrl(server.url);
    const missing = await refusedUpgrade(url);
    expect(missing.status).to.equal(401);
    expect(missing.body.error.code).to.equal('unauthorized');
    expect(missing.headers['www-authenticate']).to.match(/^ApiKey/);
    const wrong = await refusedUpgrade(url, { headers: { Authorization: 'ApiKey dtd_' + 'x'.repeat(43) } });
    expect(wrong.status).to.equal(401);
    expect(schemas.check('error-response', wrong.body)).to.deep.equal({ ok: true });
    const disabledKey = await server.createService();
    await server.disableService(disabledKey);
    const disabled = await refusedUpgrade(url, { headers: { Authorization: `ApiKey ${disabledKey}` } });
    expect(disabled.status).to.equal(403);
    expect(disabled.body.error.code).to.equal('forbidden');
    const elsewhere = await refusedUpgrade(server.url.replace(/^http/, 'ws') + '/api/v1/no-such-stream', { headers: { Authorization: `ApiKey ${server.apiKey}` } });
    expect(elsewhere.status).to.equal(404);
    expect(elsewhere.body.error.message).to.contain('/api/v1/object-detection/stream');
    // A plain GET of the stream URL is told to upgrade.
    const openApi = (await (await fetch(server.url + '/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(openApi.paths).to.include.keys('/api/v1/object-detection/stream', '/api/v1/object-detection/stream-tokens');
    const plain = await fetch(server.url + '/api/v1/object-detection/stream');
    expect(plain.status).to.equal(426);
    expect(((await plain.json()) as Message).error.code).to.equal('upgrade_required');
  });

  it('opens a stream with a single-use token (for browsers) and never logs keys, tokens or query strings', async () => {
    const issued = await postDetection(server.url, '', { apiKey: server.apiKey, path: '/api/v1/object-detection/stream-tokens' });
    expect(issued.status).to.equal(201);
    expect(issued.headers.get('cache-control')).to.equal('no-store');
    expect(schemas.check('stream-token-response', issued.body)).to.deep.equal({ ok: true });
    const { token, expires_at: expiresAt, stream_path: streamPath } = issued.body;
    expect(token).to.match(/^dst_[\w-]{32}$/);
    expect(streamPath).to.equal('/api/v1/object-detection/stream');
    expect(Date.parse(expiresAt) - Date.now()).to.be.within(0, 60_000);

    const client = await StreamClient.open(streamUrl(server.url, token));
    client.sendJson({ type: 'start' });
    client.sendFrame(clip.frames[0], 'first');
    await client.waitFor((messages) => messages.some((message) => message.frame_id === 'first'));
    await client.close();
    expect(client.messages.map((message) => message.type)).to.deep.equal(['ready', 'result']);

    const reused = await refusedUpgrade(streamUrl(server.url, token));
    expect(reused.status).to.equal(401);
    expect(reused.body.error.message).to.match(/token/);
    const withoutKey = await postDetection(server.url, '', { path: '/api/v1/object-detection/stream-tokens' });
    expect(withoutKey.status).to.equal(401);

    const log = server.logText();
    expect(log).to.not.contain(token);
    expect(log).to.not.contain(server.apiKey);
    expect(log).to.not.contain('?token');
    expect(log).to.contain('"msg":"stream closed"');
  });

  it('closes the stream with 1009 when a frame exceeds the message size limit', async () => {
    const client = await StreamClient.start(server.url, server.apiKey);
    client.sendFrame(Buffer.alloc(4 * 1024 * 1024 + 1, 0xff), 'huge');
    const { code } = await client.closed;
    expect(code).to.equal(1009);
    expect(client.messages.map((message) => message.type)).to.deep.equal(['ready']);
  });

  for (const [name, send, errorCode] of [
    ['a frame before "start"', (client: StreamClient) => client.sendFrame(Buffer.from('x'), 1), 'invalid_request'],
    ['text that is not JSON', (client: StreamClient) => client.socket.send('{"type": "start"'), 'invalid_json'],
    ['an unknown message type', (client: StreamClient) => client.sendJson({ type: 'hello' }), 'invalid_request'],
    ['a second "start"', (client: StreamClient) => [1, 2].forEach(() => client.sendJson({ type: 'start' })), 'invalid_request'],
    ['a bad configuration', (client: StreamClient) => client.sendJson({ type: 'start', configurations: [{ parameter: 'ConfidenceThreshold', value: '2' }] }), 'invalid_configuration'],
  ] as const) {
    it(`closes the stream with 4400 after an error message for ${name}`, async () => {
      const client = await StreamClient.open(streamUrl(server.url), { headers: { Authorization: `ApiKey ${server.apiKey}` } });
      send(client);
      const { code, reason } = await client.closed;
      expect(code).to.equal(4400);
      const last = client.messages.at(-1)!;
      expect(client.messages.filter((message) => message.type !== 'ready')).to.deep.equal([last]);
      expect(last.error.code).to.equal(errorCode);
      expect(reason).to.equal(last.error.message.slice(0, 123));
      expectValidMessage(last);
    });
  }

  it('survives a flood of bad input and still serves', async () => {
    const clients = await Promise.all(Array.from({ length: 4 }, () => StreamClient.start(server.url, server.apiKey)));
    for (const client of clients) {
      for (let index = 0; index < 20; index++) client.sendFrame(Buffer.from([0xff, 0xd8, 0xff, index]), index);
      client.socket.terminate(); // hang up mid-work
    }
    const { status, body } = await postDetection(server.url, { raw_data: clip.frames[0].toString('base64') }, { apiKey: server.apiKey });
    expect(status).to.equal(200);
    expect(body.detected_objects.length).to.be.greaterThan(0);
  });
});

describe('video stream limits: stream count, pixels, idle streams, dead peers, shutdown', () => {
  let server: TestServer;
  let frame: Buffer;

  before(async () => {
    server = await startTestServer({
      DETECTD_MODEL: modelPath('yolox-nano-416'),
      DETECTD_STREAM_MAX_STREAMS: '2',
      DETECTD_STREAM_MAX_FRAME_PIXELS: String(320 * 240),
      DETECTD_STREAM_IDLE_TIMEOUT_MS: '1500',
      DETECTD_STREAM_PING_INTERVAL_MS: '150',
    });
    frame = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#808080' } }).jpeg().toBuffer();
  });
  after(async () => server?.close());

  it('refuses streams beyond DETECTD_STREAM_MAX_STREAMS with 503, and admits again once one closes', async () => {
    const open = await Promise.all([StreamClient.start(server.url, server.apiKey), StreamClient.start(server.url, server.apiKey)]);
    const refused = await refusedUpgrade(streamUrl(server.url), { headers: { Authorization: `ApiKey ${server.apiKey}` } });
    expect(refused.status).to.equal(503);
    expect(refused.body.error.code).to.equal('overloaded');
    expect(refused.headers['retry-after']).to.equal('5');
    await open[0].close();
    const admitted = await waitFor(() => StreamClient.start(server.url, server.apiKey).catch(() => undefined), { what: 'a stream admitted after one closed', intervalMs: 100 });
    await Promise.all([open[1].close(), admitted.close()]);
  });

  it('refuses a frame over DETECTD_STREAM_MAX_FRAME_PIXELS without closing the stream', async () => {
    const client = await StreamClient.start(server.url, server.apiKey);
    const big = await sharp({ create: { width: 321, height: 240, channels: 3, background: '#808080' } }).png().toBuffer();
    client.sendFrame(big, 'big');
    await client.waitFor((all) => all.some((message) => message.frame_id === 'big'));
    client.sendFrame(frame, 'small');
    const messages = await client.waitFor((all) => all.some((message) => message.frame_id === 'small'));
    await client.close();
    const refusal = messages.find((message) => message.frame_id === 'big');
    expect(refusal?.error.code).to.equal('image_too_large');
    expect(messages.find((message) => message.frame_id === 'small')?.type).to.equal('result');
  });

  it('pings each stream and closes idle ones with 4408', async () => {
    const client = await StreamClient.start(server.url, server.apiKey);
    let pings = 0;
    client.socket.on('ping', () => pings++);
    const { code, reason } = await client.closed;
    expect(code).to.equal(4408);
    expect(reason).to.match(/no message for 1500 ms/);
    expect(pings).to.be.greaterThan(0);
  });

  it('drops a peer that stops answering pings', async () => {
    const client = await StreamClient.open(streamUrl(server.url), { headers: { Authorization: `ApiKey ${server.apiKey}` }, autoPong: false });
    const { code } = await client.closed;
    expect(code, 'connection cut without a close frame').to.equal(1006);
  });

  it('closes open streams with 1001 when the server shuts down', async () => {
    // A server of its own to shut down: the others' tests keep theirs.
    const closing = await startTestServer({ DETECTD_MODEL: modelPath('yolox-nano-416') });
    let client: StreamClient;
    try {
      client = await StreamClient.start(closing.url, closing.apiKey);
      client.sendFrame(frame, 1);
    } finally {
      await closing.close();
    }
    const { code, reason } = await client.closed;
    expect(code).to.equal(1001);
    expect(reason).to.equal('server shutting down');
  });
});
