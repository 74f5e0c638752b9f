import { text } from 'node:stream/consumers';
import { expect } from 'chai';
import sharp from 'sharp';
import WebSocket from 'ws';
import { refusedUpgrade } from '../scripts/lib/stream-client.js';
import { decodeNvisionMessage, encodeNvisionMessage, type NvisionMessage } from '../src/transports/stream-nvision/nvision-wire.js';
import { DOG_SIZE, dogJpeg } from './support/images.js';
import { nvision, redirectSdkStreams } from './support/nvision-sdk.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { waitFor } from './support/wait-for.js';

/** A message as the SDK hands it to its `message` listeners (NvisionRequest.fromProto). */
interface SdkMessage {
  service_id: string;
  frame_id?: string;
  source_id?: string;
  raw_data?: Uint8Array;
  detected_objects?: { name: string; parent: string; confidence: number; bounding_box: { left: number; right: number; top: number; bottom: number }; cropped_image?: Uint8Array }[];
}

const nvisionUrl = (server: TestServer) => server.url.replace(/^http/, 'ws') + '/api/v1/object-detection';

/** Resolves with the close code once `socket` closes. */
const closed = (socket: WebSocket) => new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })));

describe('Nvision stream: the unmodified @nipacloud/nvision 0.1.7 SDK against the real server', () => {
  let server: TestServer;
  let restore: () => void;
  let serviceId: string;

  before(async () => {
    server = await startTestServer();
    restore = redirectSdkStreams(server.url);
    serviceId = (await server.domain.keys.authenticate(server.apiKey))!.id;
  });
  after(async () => {
    restore?.();
    await server?.close();
  });

  it('stream() → connect() → predict() frames → message events with the objects, ids echoed and the visualized frame as raw_data', async () => {
    const stream = nvision.objectDetection({ apiKey: server.apiKey, streamingKey: server.apiKey }).stream();
    const messages: SdkMessage[] = [];
    stream.on('message', (message) => void messages.push(message as SdkMessage));
    await stream.connect();
    const dog = dogJpeg();
    await stream.predict({ rawData: dog, frameId: 'frame-1', sourceId: 'camera-7', confidenceThreshold: 0.3 });
    await waitFor(() => messages.length >= 1, { what: 'the answer to frame-1' });
    await stream.predict({ rawData: dog.toString('base64'), frameId: 'frame-2', sourceId: 'camera-7', outputVisualizedImage: true, outputCroppedImage: true });
    await waitFor(() => messages.length >= 2, { what: 'the answer to frame-2' });

    const [plain, visualized] = messages;
    for (const [message, frameId] of [[plain, 'frame-1'], [visualized, 'frame-2']] as const) {
      expect(message).to.include({ service_id: serviceId, frame_id: frameId, source_id: 'camera-7' });
      const names = message.detected_objects!.map((object) => object.name);
      expect(names).to.include.members(['dog', 'bicycle', 'truck']);
      for (const object of message.detected_objects!) {
        expect(object.bounding_box, object.name).to.have.all.keys('left', 'right', 'top', 'bottom');
        expect(object.bounding_box.right).to.be.greaterThan(object.bounding_box.left);
        expect(object.confidence).to.be.within(0, 1);
        expect(object.parent).to.be.a('string');
      }
    }
    expect(plain.raw_data, 'no image unless asked').to.equal(undefined);
    expect(plain.detected_objects!.every((object) => object.confidence >= 0.3)).to.equal(true);
    const image = await sharp(Buffer.from(visualized.raw_data!)).metadata();
    expect(image).to.include({ format: 'jpeg', ...DOG_SIZE });
    const crop = visualized.detected_objects![0];
    expect((await sharp(Buffer.from(crop.cropped_image!)).metadata()).width).to.equal(crop.bounding_box.right - crop.bounding_box.left);
  });

  it('echoes the key (or a stream token) offered as subprotocol, and refuses a wrong or missing key before the upgrade', async () => {
    const socket = new WebSocket(nvisionUrl(server), server.apiKey);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    expect(socket.protocol).to.equal(server.apiKey);
    socket.close();
    const wrong = new WebSocket(nvisionUrl(server), 'dtd_' + 'x'.repeat(43));
    const refusal = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      wrong.once('open', () => reject(new Error('the upgrade was accepted')));
      wrong.once('unexpected-response', (_request, response) => void text(response).then((body) => resolve({ status: response.statusCode, body })));
    });
    expect(refusal.status).to.equal(401);
    expect(JSON.parse(refusal.body).error.message).to.contain('unknown');
    const missing = await refusedUpgrade(nvisionUrl(server));
    expect(missing.status).to.equal(401);

    // A browser app may offer a single-use stream token instead of its key.
    const { token } = (await (await fetch(server.url + '/api/v1/object-detection/stream-tokens', { method: 'POST', headers: { Authorization: `ApiKey ${server.apiKey}` } })).json()) as { token: string };
    const withToken = new WebSocket(nvisionUrl(server), token);
    await new Promise((resolve, reject) => withToken.once('open', resolve).once('error', reject));
    expect(withToken.protocol).to.equal(token);
    withToken.close();
    expect((await refusedUpgrade(nvisionUrl(server) + `?token=${token}`)).status, 'used once').to.equal(401);

    // The OpenAPI document shows the upgrade beside the image API's POST on the same path.
    const openApi = (await (await fetch(server.url + '/openapi.json')).json()) as { paths: Record<string, Record<string, { responses: object }>> };
    expect(openApi.paths['/api/v1/object-detection']).to.have.keys('post', 'get');
    expect(openApi.paths['/api/v1/object-detection'].get.responses).to.include.keys('101', '401');
    expect(server.logText()).to.not.contain(server.apiKey);
  });

  it('answers a bad frame with a protobuf error for that frame and goes on; closes with 4400 after a protobuf error for a text message', async () => {
    const socket = new WebSocket(nvisionUrl(server), server.apiKey);
    socket.binaryType = 'nodebuffer';
    const received: NvisionMessage[] = [];
    socket.on('message', (data: Buffer, isBinary) => {
      expect(isBinary, 'every server message is binary').to.equal(true);
      received.push(decodeNvisionMessage(data));
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send(encodeNvisionMessage({ frame_id: 'garbage', raw_data: Buffer.from('not an image') }));
    socket.send(encodeNvisionMessage({ frame_id: 'good', raw_data: dogJpeg() }));
    await waitFor(() => received.length >= 2, { what: 'the answers to the garbage and the good frame' });
    expect(received[0]).to.deep.include({ frame_id: 'garbage', service_id: serviceId });
    expect(received[0].error).to.include({ code: 'invalid_image' });
    expect(received[1].frame_id).to.equal('good');
    expect(received[1].detected_objects!.map((object) => object.name)).to.include('dog');

    const end = closed(socket);
    socket.send('{"hello": "text"}');
    const { code, reason } = await end;
    expect(code).to.equal(4400);
    expect(reason).to.match(/binary protobuf/);
    expect(received.at(-1)!.error).to.include({ code: 'invalid_request' });
  });

  it('keeps only a frame\'s target_classes; an unknown class name breaks the protocol like any bad parameter: a protobuf invalid_request listing the valid ones, then 4400', async () => {
    const socket = new WebSocket(nvisionUrl(server), server.apiKey);
    socket.binaryType = 'nodebuffer';
    const received: NvisionMessage[] = [];
    socket.on('message', (data: Buffer) => void received.push(decodeNvisionMessage(data)));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send(encodeNvisionMessage({ frame_id: 'dogs', raw_data: dogJpeg(), target_classes: ['dog', 'truck'] }));
    await waitFor(() => received.length >= 1, { what: 'the answer to the dogs frame' });
    expect(received[0].frame_id).to.equal('dogs');
    expect(received[0].detected_objects!.map((object) => object.name)).to.have.members(['dog', 'truck']);

    const end = closed(socket);
    socket.send(encodeNvisionMessage({ frame_id: 'unicorns', raw_data: dogJpeg(), target_classes: ['unicorn'] }));
    expect((await end).code).to.equal(4400);
    const refusal = received.at(-1)!.error!;
    expect(refusal.code).to.equal('invalid_request');
    expect(refusal.message).to.contain('"unicorn"').and.contain('bicycle');
  });

  it('shows streams in /metrics: open streams, frames by fate, per-frame latency', async () => {
    const metric = async (line: RegExp) => Number(line.exec(await (await fetch(server.url + '/metrics')).text())?.[1] ?? 0);
    const open = /^detectd_streams_open\{transport="stream-nvision"\} (\d+)$/m;
    const analysed = /^detectd_stream_frames_total\{transport="stream-nvision",fate="analysed"\} (\d+)$/m;
    const latencies = /^detectd_stream_frame_latency_seconds_count\{transport="stream-nvision",model="yolo26n-640-int8"\} (\d+)$/m;
    // Relative to before: the SDK's stream of the first test is still open (the SDK has no close).
    const [openBefore, analysedBefore, latenciesBefore] = [await metric(open), await metric(analysed), await metric(latencies)];

    const socket = new WebSocket(nvisionUrl(server), server.apiKey);
    const answered = new Promise((resolve) => socket.once('message', resolve));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    expect(await metric(open)).to.equal(openBefore + 1);
    socket.send(encodeNvisionMessage({ frame_id: 'metered', raw_data: dogJpeg() }));
    await answered;
    const end = closed(socket);
    socket.close(1000);
    await end;
    await waitFor(async () => (await metric(open)) === openBefore, { what: 'the closed stream to leave detectd_streams_open' });
    expect(await metric(analysed)).to.equal(analysedBefore + 1);
    expect(await metric(latencies)).to.equal(latenciesBefore + 1);
  });
});
