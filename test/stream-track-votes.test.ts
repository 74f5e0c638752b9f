import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import sharp from 'sharp';
import WebSocket from 'ws';
import { type Message, StreamClient } from '../scripts/lib/stream-client.js';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { decodeNvisionMessage, encodeNvisionMessage, type NvisionMessage, type NvisionObject } from '../src/transports/stream-nvision/nvision-wire.js';
import { cropPath } from './support/faces.js';
import { nvision, redirectSdkStreams } from './support/nvision-sdk.js';
import { SHARED_DIR } from './support/paths.js';
import { plateModelsFolder } from './support/plate-models.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { waitFor } from './support/wait-for.js';

const schemas = new SchemaCatalogue();
const PLATES = path.join(SHARED_DIR, 'eval', 'plates', 'images');

/** Where a plate is in its photo, from ../shared/eval/plates/annotations.json: x, y, width, height. */
type PlaceInPhoto = readonly [number, number, number, number];
/** The clip's plate (DG2Z6U) and the one pasted over it in the misread frame (SZA679): both 90×45 in their photos. */
const CLIP_PLATE = { file: 'us/wts-lg-000014.jpg', text: 'DG2Z6U', box: [552, 172, 90, 45] as PlaceInPhoto };
const OTHER_PLATE = { file: 'us/wts-lg-000056.jpg', text: 'SZA679', box: [464, 452, 90, 45] as PlaceInPhoto };
/** Every clip: 6 frames, the 4th of which reads wrong. */
const FRAMES = 6;
const MISREAD = 4;
const FRAME_SIZE = { width: 640, height: 480 };

/** The track's answer on each frame of a clip whose every frame but MISREAD said `name`. */
const trackSaying = (name: string) =>
  Array.from({ length: FRAMES }, (_, index) => ({ name, frames_agreeing: index + 1 < MISREAD ? index + 1 : index, frames: index + 1 }));

/**
 * A camera's 6 frames of a parked car, drifting a few pixels a frame: 640×480 windows of the plate
 * photo; in frame MISREAD the plate (with a margin) is covered by another car's plate, at the same place.
 */
async function plateClip(): Promise<Buffer[]> {
  const margin = 4;
  const region = ([x, y, width, height]: PlaceInPhoto) => ({ left: x - margin, top: y - margin, width: width + 2 * margin, height: height + 2 * margin });
  const photo = fs.readFileSync(path.join(PLATES, CLIP_PLATE.file));
  const other = await sharp(path.join(PLATES, OTHER_PLATE.file)).extract(region(OTHER_PLATE.box)).toBuffer();
  const place = region(CLIP_PLATE.box);
  const covered = await sharp(photo).composite([{ input: other, left: place.left, top: place.top }]).jpeg({ quality: 95 }).toBuffer();
  return Promise.all(
    Array.from({ length: FRAMES }, (_, index) =>
      sharp(index + 1 === MISREAD ? covered : photo)
        .extract({ left: 300 + 6 * index, top: 4 * index, ...FRAME_SIZE })
        .jpeg({ quality: 90 })
        .toBuffer(),
    ),
  );
}

/** A face of `person` 200 px tall on a grey wall, drifting a few pixels a frame; in frame MISREAD `other` stands there instead. */
async function faceClip(person: string, other: string): Promise<Buffer[]> {
  const face = (who: string) => sharp(cropPath(who, 2)).resize(200, 200).toColourspace('srgb').png().toBuffer();
  const [own, wrong] = await Promise.all([face(person), face(other)]);
  return Promise.all(
    Array.from({ length: FRAMES }, (_, index) =>
      sharp({ create: { ...FRAME_SIZE, channels: 3, background: { r: 128, g: 128, b: 128 } } })
        .composite([{ input: index + 1 === MISREAD ? wrong : own, left: 220 + 5 * index, top: 140 + 3 * index }])
        .jpeg({ quality: 90 })
        .toBuffer(),
    ),
  );
}

/** Sends the frames one at a time, each once the previous is answered (none is dropped), on the JSON stream of `task`; the results in order. */
async function streamJson(server: TestServer, apiKey: string, task: string, frames: Buffer[]): Promise<Message[]> {
  const client = await StreamClient.start(server.url, apiKey, {}, task);
  for (const [index, frame] of frames.entries()) {
    client.sendFrame(frame, index + 1);
    await client.waitFor((messages) => messages.some((message) => message.frame_id === index + 1), 120_000);
  }
  await client.close();
  const results = client.results();
  for (const message of client.messages) expect(schemas.check('stream-server-message', message), JSON.stringify(message).slice(0, 400)).to.deep.equal({ ok: true });
  expect(results.map((result) => result.frame_id), JSON.stringify(client.summary())).to.deep.equal(frames.map((_, index) => index + 1));
  return results;
}

/** The one item of each result (the clip shows one face or one plate), all of one track. */
function theTrack(results: readonly Message[], field: string): Message[] {
  const items = results.map((result) => {
    expect(result[field], `frame ${result.frame_id}: ${JSON.stringify(result[field])}`).to.have.length(1);
    return result[field][0] as Message;
  });
  expect(new Set(items.map((item) => item.track_id)).size, 'one track through the clip').to.equal(1);
  return items;
}

/** Registers `person` from their first shared face crop, as Double Take does (the DeepStack door). */
async function register(server: TestServer, apiKey: string, person: string): Promise<void> {
  const form = new FormData();
  form.append('userid', person);
  form.append('image', new Blob([new Uint8Array(fs.readFileSync(cropPath(person, 1)))]), `${person}.png`);
  const registered = await fetch(`${server.url}/v1/vision/face/register`, { method: 'POST', headers: { Authorization: `Bearer ${apiKey}` }, body: form });
  expect(registered.status, await registered.clone().text()).to.equal(200);
}

describe('streams: one answer per track, decided over its frames (real server, real models, clips with one misread frame)', function () {
  // Face recognition and plate reading of every frame, on a shared 2-core machine.
  this.timeout(600_000);
  let server: TestServer;
  let models: string;
  let plateKey: string;
  let faceKey: string;
  let restoreSdk: () => void;
  let plateFrames: Buffer[];
  let faceFrames: Buffer[];

  before(async () => {
    models = plateModelsFolder();
    server = await startTestServer({ DETECTD_MODELS_DIR: models });
    restoreSdk = redirectSdkStreams(server.url);
    plateKey = await server.createService({ name: 'gate', type: 'license-plate' });
    faceKey = await server.createService({ name: 'front door', type: 'face-detection' });
    await register(server, faceKey, 'amy');
    await register(server, faceKey, 'penny');
    [plateFrames, faceFrames] = await Promise.all([plateClip(), faceClip('amy', 'penny')]);
  });
  after(async () => {
    restoreSdk?.();
    await server?.close();
    if (models) fs.rmSync(models, { recursive: true, force: true });
  });

  it('JSON stream, plates: the misread frame says its own text, the track keeps the majority\'s, with how many frames agree', async () => {
    const plates = theTrack(await streamJson(server, plateKey, 'license-plate', plateFrames), 'detected_plates');
    const read = plates.map((plate) => plate.name);
    expect(read.filter((_, index) => index + 1 !== MISREAD), `read: ${read}`).to.deep.equal(Array(FRAMES - 1).fill(CLIP_PLATE.text));
    // The pasted plate reads more surely than the clip's own in any frame; it still does not win.
    expect(read[MISREAD - 1], 'the misread frame reads the pasted plate').to.equal(OTHER_PLATE.text);
    expect(plates[MISREAD - 1].read_confidence).to.be.greaterThan(Math.max(...plates.filter((_, index) => index + 1 !== MISREAD).map((plate) => plate.read_confidence)));
    expect(plates.map((plate) => plate.track)).to.deep.equal(trackSaying(CLIP_PLATE.text));
  });

  it('JSON stream, faces: the frame where someone else stands is named for them, the track stays the registered person\'s', async () => {
    const faces = theTrack(await streamJson(server, faceKey, 'face-detection', faceFrames), 'detected_faces');
    expect(faces.map((face) => face.name)).to.deep.equal(['amy', 'amy', 'amy', 'penny', 'amy', 'amy']);
    expect(faces.map((face) => face.track)).to.deep.equal(trackSaying('amy'));
  });

  it('JSON stream, faces: a stranger in one frame votes `unknown` for that frame, and the track stays the registered person\'s', async () => {
    const faces = theTrack(await streamJson(server, faceKey, 'face-detection', await faceClip('amy', 'stuart')), 'detected_faces');
    expect(faces.map((face) => face.name)).to.deep.equal(['amy', 'amy', 'amy', 'unknown', 'amy', 'amy']);
    expect(faces[MISREAD - 1]).to.not.have.property('similarity');
    expect(faces.map((face) => face.track)).to.deep.equal(trackSaying('amy'));
  });

  it('Nvision stream, faces: the official SDK decodes every frame unchanged (the frame\'s own name); the same wire carries track_id and track, read with schemas/nvision.proto', async () => {
    // The SDK's stream client: it skips detectd's fields and hands its listeners the frame's own answer.
    const stream = nvision.faceDetection({ apiKey: faceKey, streamingKey: faceKey }).stream();
    const sdkMessages: { frame_id?: string; detected_faces?: { name: string; bounding_box: object }[] }[] = [];
    stream.on('message', (message) => void sdkMessages.push(message as (typeof sdkMessages)[number]));
    await stream.connect();
    for (const [index, frame] of faceFrames.entries()) {
      await stream.predict({ rawData: frame, frameId: `sdk-${index + 1}` });
      await waitFor(() => sdkMessages.length > index, { what: `the SDK's answer to frame ${index + 1}` });
    }
    expect(sdkMessages.map((message) => message.frame_id)).to.deep.equal(faceFrames.map((_, index) => `sdk-${index + 1}`));
    expect(sdkMessages.map((message) => message.detected_faces!.map((face) => face.name))).to.deep.equal([['amy'], ['amy'], ['amy'], ['penny'], ['amy'], ['amy']]);
    for (const message of sdkMessages) expect(Object.keys(message.detected_faces![0])).to.not.include.members(['track', 'track_id']);

    // A client built from detectd's .proto reads the decided answer off the same messages.
    const socket = new WebSocket(server.url.replace(/^http/, 'ws') + '/api/v1/face-detection', faceKey);
    socket.binaryType = 'nodebuffer';
    const received: NvisionMessage[] = [];
    socket.on('message', (data: Buffer) => void received.push(decodeNvisionMessage(data)));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    for (const [index, frame] of faceFrames.entries()) {
      socket.send(encodeNvisionMessage({ frame_id: `proto-${index + 1}`, raw_data: frame }));
      await waitFor(() => received.length > index, { what: `the answer to frame ${index + 1}` });
    }
    socket.close(1000);
    const faces = received.map((message) => {
      expect(message.error, JSON.stringify(message.error)).to.not.exist;
      expect(message.detected_faces).to.have.length(1);
      return message.detected_faces![0] as Required<NvisionObject>;
    });
    expect(faces.map((face) => face.name)).to.deep.equal(['amy', 'amy', 'amy', 'penny', 'amy', 'amy']);
    expect(new Set(faces.map((face) => face.track_id))).to.have.property('size', 1);
    expect(faces[0].track_id).to.be.at.least(1);
    expect(faces.map((face) => face.track)).to.deep.equal(trackSaying('amy'));
  });

  it('object detection: tracks have ids and no decided answer (a track keeps its class)', async () => {
    const apiKey = await server.createService({ name: 'yard', type: 'object-detection' });
    const [result] = await streamJson(server, apiKey, 'object-detection', [fs.readFileSync(path.join(SHARED_DIR, 'eval', 'photos', 'dog.jpg'))]);
    expect(result.detected_objects.length).to.be.at.least(1);
    for (const object of result.detected_objects) {
      expect(object.track_id).to.be.a('number');
      expect(object).to.not.have.property('track');
    }
  });
});
