import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import WebSocket from 'ws';
import { StreamClient, type Message } from '../scripts/lib/stream-client.js';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { DESCRIBED_FEATURES, TASK_DESCRIPTIONS } from '../src/features/index.js';
import type { Task } from '../src/tasks/task.js';
import { deepStackRouteTable } from '../src/transports/deepstack/deepstack-route-table.js';
import { decodeNvisionMessage, encodeNvisionMessage, type NvisionMessage } from '../src/transports/stream-nvision/nvision-wire.js';
import { NVISION_ANSWER_FIELDS, streamPaths } from '../src/transports/stream-paths.js';
import { cropPath } from './support/faces.js';
import { DEFAULT_TEST_MODEL, SHARED_DIR } from './support/paths.js';
import { dogJpeg } from './support/images.js';
import { plateModelsFolder } from './support/plate-models.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/** Every schema the server publishes: schemas/ and those the tasks bring. */
const schemas = new SchemaCatalogue(undefined, TASK_DESCRIPTIONS.all.flatMap((task) => task.schemas ?? []));

/** A photo on which each task finds something, so that every field of its findings is on the wire. */
const PHOTOS: Readonly<Record<string, () => Buffer>> = {
  'object-detection': dogJpeg,
  // Leonard, registered from another photo of him (before()): recognized, with his similarity.
  'face-detection': () => fs.readFileSync(cropPath('leonard', 2)),
  'license-plate': () => fs.readFileSync(path.join(SHARED_DIR, 'eval', 'plates', 'images', 'eu', 'eu1.jpg')),
  // A parking frame whose one region was taught two states (before()).
  'region-states': () => fs.readFileSync(path.join(PKLOT_FRAMES, '2012-09-11_17_12_07.jpg')),
};
const PKLOT_FRAMES = path.join(SHARED_DIR, 'eval', 'states', 'pklot-pucpr', 'images');
const NOT_AN_IMAGE = Buffer.from('not an image at all');
const CUSTOM_MODEL = path.basename(DEFAULT_TEST_MODEL, '.onnx');

function expectValid(schema: string, answer: unknown, where: string): void {
  expect(schemas.check(schema, answer), `${where}: ${JSON.stringify(answer).slice(0, 400)}`).to.deep.equal({ ok: true });
}

const file = (bytes: Buffer) => new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' });

function form(files: Record<string, Buffer>, fields: Record<string, string> = {}): FormData {
  const body = new FormData();
  for (const [field, bytes] of Object.entries(files)) body.append(field, file(bytes), `${field}.jpg`);
  for (const [field, value] of Object.entries(fields)) body.append(field, value);
  return body;
}

/**
 * Every task of the task table through every door the server has — REST v1 and legacy in their
 * three body forms, the JSON stream, the Nvision stream where the task's answer field is in its
 * protobuf, and the DeepStack / CodeProject.AI routes — on real models (the embedded face model, the
 * default object model, the shared plate pair) and real photos: every answer, errors included, is
 * valid against the schema detectd publishes for it.
 */
describe('every task through every door: each answer valid against the published schema', function () {
  this.timeout(300_000);
  let server: TestServer;
  let models: string;
  const keys: Record<string, string> = {};

  before(async () => {
    models = plateModelsFolder();
    server = await startTestServer({ DETECTD_MODELS_DIR: models });
    for (const task of TASK_DESCRIPTIONS.all) keys[task.type] = await server.createService({ name: task.type, type: task.type });
    const registered = await fetch(`${server.url}/v1/vision/face/register`, { method: 'POST', body: form({ image: fs.readFileSync(cropPath('leonard', 1)) }, { userid: 'leonard', api_key: keys['face-detection'] }) });
    expect(registered.status).to.equal(200);
    // A region of the parking frame, on the unnamed source and on s1, taught as it is then and as another frame shows it.
    const states = (route: string, body: object) => fetch(`${server.url}/api/v1/region-states/${route}`, { method: 'POST', headers: { Authorization: `ApiKey ${keys['region-states']}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    for (const source_id of ['', 's1']) {
      expect((await states('regions', { source_id, regions: [{ name: 'space', bounding_box: { left: 278, top: 185, right: 324, bottom: 230 } }] })).status).to.equal(201);
      for (const [frame, state] of [['2012-09-11_17_12_07.jpg', 'occupied'], ['2012-10-11_15_41_51.jpg', 'empty']]) {
        expect((await states('examples', { raw_data: fs.readFileSync(path.join(PKLOT_FRAMES, frame)).toString('base64'), source_id, states: { space: state } })).status).to.equal(201);
      }
    }
  });
  after(async () => {
    await server?.close();
    if (models) fs.rmSync(models, { recursive: true, force: true });
  });

  /** The task's answer: something found, so that its findings' fields are checked too. */
  function expectFound(task: Task, answer: Record<string, unknown>, where: string): void {
    expect(answer[task.answerField], where).to.be.an('array').that.is.not.empty;
  }

  for (const task of TASK_DESCRIPTIONS.all) {
    const photo = () => PHOTOS[task.type]();

    it(`${task.type}: REST v1 and legacy, as JSON, a form and the image itself — answers valid against ${task.responseSchema}, refusals against error-response`, async () => {
      expect(PHOTOS, 'a photo for every task').to.have.property(task.type);
      const headers = { Authorization: `ApiKey ${keys[task.type]}` };
      for (const route of [`/api/v1/${task.type}`, `/api/${task.type}`]) {
        const calls: [string, RequestInit][] = [
          ['JSON', { headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ raw_data: photo().toString('base64'), frame_id: 'f1', source_id: 's1' }) }],
          ['form', { headers, body: form({ image: photo() }, { OutputCroppedImage: 'true' }) }],
          ['image', { headers: { ...headers, 'Content-Type': 'image/jpeg' }, body: new Uint8Array(photo()) }],
        ];
        for (const [bodyForm, init] of calls) {
          const answer = await fetch(`${server.url}${route}`, { method: 'POST', ...init });
          const body = (await answer.json()) as Record<string, unknown>;
          expect(answer.status, `${route} ${bodyForm}: ${JSON.stringify(body).slice(0, 300)}`).to.equal(200);
          expectValid(task.responseSchema, body, `${route} ${bodyForm}`);
          expectFound(task, body, `${route} ${bodyForm}`);
        }
        const refusals: [string, RequestInit][] = [
          ['not an image', { headers: { ...headers, 'Content-Type': 'image/jpeg' }, body: new Uint8Array(NOT_AN_IMAGE) }],
          ['a bad parameter', { headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ raw_data: photo().toString('base64'), configurations: [{ parameter: 'ConfidenceThreshold', value: '2' }] }) }],
          ['a wrong key', { headers: { Authorization: 'ApiKey wrong', 'Content-Type': 'image/jpeg' }, body: new Uint8Array(photo()) }],
        ];
        for (const [what, init] of refusals) {
          const answer = await fetch(`${server.url}${route}`, { method: 'POST', ...init });
          expect(answer.status, `${route} ${what}`).to.be.within(400, 499);
          expectValid('error-response', await answer.json(), `${route} ${what}`);
        }
      }
    });

    it(`${task.type}: the JSON stream — ready, results and a refused frame valid against stream-server-message`, async () => {
      const client = await StreamClient.start(server.url, keys[task.type], { OutputCroppedImage: 'true' }, task.type);
      // One after the other: a frame sent while another waits would supersede it.
      client.sendFrame(photo(), 'one');
      await client.waitFor((received) => received.some((message) => message.frame_id === 'one'));
      client.sendFrame(NOT_AN_IMAGE, 'broken');
      const messages = await client.waitFor((received) => received.some((message) => message.frame_id === 'broken'));
      await client.close();
      const result = messages.find((message: Message) => message.type === 'result' && message.frame_id === 'one');
      expect(result, JSON.stringify(client.summary())).to.not.equal(undefined);
      expectFound(task, result!, 'stream result');
      expect(messages.find((message) => message.frame_id === 'broken')?.type).to.equal('error');
      for (const message of messages) expectValid('stream-server-message', message, `stream ${message.type}`);
      // Each item is the task's finding as its response schema declares it, plus its track id and (faces, plates) its track's answer.
      for (const { track_id: trackId, track: _trackAnswer, ...finding } of result![task.answerField] as Record<string, unknown>[]) {
        expect(trackId).to.be.a('number');
        expectValid(task.responseSchema, { service_id: result!.service_id, [task.answerField]: [finding] }, 'a stream item as a REST finding');
      }
    });

    if (NVISION_ANSWER_FIELDS.has(task.answerField)) {
      it(`${task.type}: the Nvision stream — answers and a refused frame are schemas/nvision.proto messages`, async () => {
        const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}${streamPaths(task.type).nvision}`, { headers: { Authorization: `ApiKey ${keys[task.type]}` } });
        const received: NvisionMessage[] = [];
        socket.on('message', (data: Buffer) => received.push(decodeNvisionMessage(data)));
        await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
        const answered = async (count: number) => {
          const deadline = Date.now() + 60_000;
          while (received.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
        };
        // One after the other: a frame sent while another waits would supersede it.
        socket.send(encodeNvisionMessage({ frame_id: 'one', raw_data: photo() }));
        await answered(1);
        socket.send(encodeNvisionMessage({ frame_id: 'broken', raw_data: NOT_AN_IMAGE }));
        await answered(2);
        socket.close();
        const [answer, refusal] = received;
        expect(answer.frame_id).to.equal('one');
        const found = answer[task.answerField as 'detected_objects'] ?? [];
        expect(found).to.not.be.empty;
        for (const item of found) {
          expect(item).to.have.all.keys('name', 'parent', 'confidence', 'bounding_box', 'cropped_image', 'track_id', 'track');
          expect(item.track_id).to.be.at.least(1);
        }
        expect(refusal).to.deep.include({ frame_id: 'broken' });
        expect(refusal.error?.code).to.equal('invalid_image');
      });
    }
  }

  /** DeepStack / CodeProject.AI calls, each with the service type whose key it sends; a failure answers as well as a success. */
  const deepStackCalls = (): { what: string; path: string; type: string; body?: () => FormData; status: number }[] => {
    const faces = () => PHOTOS['face-detection']();
    const leonard = () => fs.readFileSync(cropPath('leonard', 1));
    return [
      { what: 'object detection', path: '/v1/vision/detection', type: 'object-detection', body: () => form({ image: dogJpeg() }), status: 200 },
      { what: 'a custom model', path: `/v1/vision/custom/${CUSTOM_MODEL}`, type: 'object-detection', body: () => form({ image: dogJpeg() }, { min_confidence: '0.3' }), status: 200 },
      { what: 'the custom model list', path: '/v1/vision/custom/list', type: 'object-detection', status: 200 },
      { what: 'no image', path: '/v1/vision/detection', type: 'object-detection', body: () => form({}, { min_confidence: '0.3' }), status: 400 },
      { what: 'a bad min_confidence', path: '/v1/vision/detection', type: 'object-detection', body: () => form({ image: dogJpeg() }, { min_confidence: 'most' }), status: 400 },
      { what: 'an unknown custom model', path: '/v1/vision/custom/nothing-so-named', type: 'object-detection', body: () => form({ image: dogJpeg() }), status: 404 },
      { what: 'a malformed %-escape in the model\'s name', path: '/v1/vision/custom/%E0%A4%A', type: 'object-detection', body: () => form({ image: dogJpeg() }), status: 400 },
      { what: 'face detection', path: '/v1/vision/face', type: 'face-detection', body: () => form({ image: faces() }), status: 200 },
      { what: 'face recognition', path: '/v1/vision/face/recognize', type: 'face-detection', body: () => form({ image: faces() }), status: 200 },
      { what: 'face registration', path: '/v1/vision/face/register', type: 'face-detection', body: () => form({ image: leonard(), image1: faces() }, { userid: 'leonard again' }), status: 200 },
      { what: 'a registration without userid', path: '/v1/vision/face/register', type: 'face-detection', body: () => form({ image: leonard() }), status: 400 },
      { what: 'a registration with no face', path: '/v1/vision/face/register', type: 'face-detection', body: () => form({ image: dogJpeg() }, { userid: 'a dog' }), status: 400 },
      { what: 'the list of people', path: '/v1/vision/face/list', type: 'face-detection', status: 200 },
      { what: 'a comparison', path: '/v1/vision/face/match', type: 'face-detection', body: () => form({ image1: leonard(), image2: faces() }), status: 200 },
      { what: 'a comparison without its second photo', path: '/v1/vision/face/match', type: 'face-detection', body: () => form({ image1: leonard() }), status: 400 },
      { what: 'a deletion', path: '/v1/vision/face/delete', type: 'face-detection', body: () => form({}, { userid: 'leonard again' }), status: 200 },
      { what: 'CodeProject.AI ALPR', path: '/v1/image/alpr', type: 'license-plate', body: () => form({ upload: PHOTOS['license-plate']() }), status: 200 },
      { what: 'CodeProject.AI ALPR, its vision path', path: '/v1/vision/alpr', type: 'license-plate', body: () => form({ upload: PHOTOS['license-plate']() }, { min_confidence: '0.3' }), status: 200 },
      { what: 'ALPR with two files', path: '/v1/image/alpr', type: 'license-plate', body: () => form({ upload: PHOTOS['license-plate'](), other: dogJpeg() }), status: 400 },
      { what: 'ALPR with no file', path: '/v1/image/alpr', type: 'license-plate', body: () => form({}), status: 400 },
      { what: 'ALPR with a key of another service type', path: '/v1/image/alpr', type: 'object-detection', body: () => form({ upload: PHOTOS['license-plate']() }), status: 403 },
    ];
  };

  it('start-up refuses a task whose response schema does not declare its answer field as a list of findings', () => {
    for (const task of TASK_DESCRIPTIONS.all) expect(() => schemas.declaresAnswer(task.responseSchema, task.answerField), task.type).to.not.throw();
    expect(() => schemas.declaresAnswer('object-detection-response', 'detected_faces')).to.throw('must declare "detected_faces" as an array of objects');
    expect(() => schemas.declaresAnswer('object-detection-response', 'service_id')).to.throw('must declare "service_id"');
  });

  it('the reference publishes the schemas checked here: each task\'s response, the DeepStack answer on every keyed DeepStack route', async () => {
    const reference = (await (await fetch(`${server.url}/openapi.json`)).json()) as any;
    for (const task of TASK_DESCRIPTIONS.all) {
      const answer = reference.paths[`/api/v1/${task.type}`].post.responses['200'].content['application/json'].schema.$ref as string;
      const { $id: _id, $schema: _schema, ...published } = schemas.schemas.get(task.responseSchema)!;
      expect(JSON.stringify(reference.components.schemas[answer.split('/').pop()!].properties[task.answerField].items.required), task.type).to.equal(
        JSON.stringify((published.properties as any)[task.answerField].items.required),
      );
    }
    for (const route of deepStackRouteTable(TASK_DESCRIPTIONS, DESCRIBED_FEATURES.deepStack).filter((each) => each.access !== 'open')) {
      const path = route.path.replace(':model', '{model}');
      for (const [status, response] of Object.entries(reference.paths[path][route.method].responses) as [string, any][]) {
        expect(response.content['application/json'].schema.$ref, `${path} ${status} ${JSON.stringify(response)}`).to.equal('#/components/schemas/DeepStackResponse');
      }
    }
    expect(reference.components.schemas.DeepStackResponse.$defs.failure.required).to.include('error');
  });

  it('every task\'s DeepStack / CodeProject.AI route is called here', () => {
    const called = new Set(deepStackCalls().map((call) => call.path.replace(`custom/${CUSTOM_MODEL}`, 'custom/:model')));
    for (const route of deepStackRouteTable(TASK_DESCRIPTIONS, DESCRIBED_FEATURES.deepStack)) if (route.method === 'post') expect(called, route.path).to.include(route.path);
  });

  it('DeepStack / CodeProject.AI: detection, custom models, the face API and ALPR — answers and refusals valid against deepstack-response', async () => {
    for (const call of deepStackCalls()) {
      const body = call.body?.() ?? new FormData();
      body.append('api_key', keys[call.type]);
      const answer = await fetch(`${server.url}${call.path}`, { method: 'POST', body });
      const json = (await answer.json()) as Record<string, unknown>;
      expect(answer.status, `${call.what}: ${JSON.stringify(json).slice(0, 300)}`).to.equal(call.status);
      expectValid('deepstack-response', json, call.what);
      if (call.status === 200 && Array.isArray(json.predictions)) expect(json.predictions, call.what).to.not.be.empty;
    }
  });

  /** A DeepStack form posted with the key of a service of `type`; its status and JSON answer. */
  async function deepStack(route: string, type: string, body: FormData): Promise<{ status: number; json: Record<string, any> }> {
    body.append('api_key', keys[type]);
    const answer = await fetch(`${server.url}${route}`, { method: 'POST', body });
    return { status: answer.status, json: (await answer.json()) as Record<string, any> };
  }

  it('CodeProject.AI ALPR honours min_confidence, with the plate task\'s own default when absent (not DeepStack\'s 0.4 nor REST\'s)', async () => {
    const plate = () => ({ upload: PHOTOS['license-plate']() });
    // eu1.jpg's plate: detector confidence 0.89.
    const absent = await deepStack('/v1/image/alpr', 'license-plate', form(plate()));
    expect(absent.json.predictions.map((prediction: { plate: string }) => prediction.plate)).to.deep.equal(['M5XSX']);
    const confidence = absent.json.predictions[0].confidence as number;
    const above = await deepStack('/v1/image/alpr', 'license-plate', form(plate(), { min_confidence: String(Math.min(1, confidence + 0.05)) }));
    expect(above.json).to.include({ success: true, count: 0, message: 'No plates found' });
    const below = await deepStack('/v1/vision/alpr', 'license-plate', form(plate(), { min_confidence: String(confidence - 0.05) }));
    expect(below.json).to.include({ success: true, count: 1 });
    const bad = await deepStack('/v1/image/alpr', 'license-plate', form(plate(), { min_confidence: '1.5' }));
    expect([bad.status, bad.json.error]).to.deep.equal([400, 'min_confidence cannot be greater than 1']);
    // The reference says which default it is.
    const reference = (await (await fetch(`${server.url}/openapi.json`)).json()) as any;
    const fields = reference.paths['/v1/image/alpr'].post.requestBody.content['multipart/form-data'].schema.properties;
    expect(fields.min_confidence.description).to.contain('default 0.25');
  });

  it('CodeProject.AI ALPR: two files are refused naming the field it reads, in the singular', async () => {
    const two = await deepStack('/v1/image/alpr', 'license-plate', form({ upload: PHOTOS['license-plate'](), other: dogJpeg() }));
    expect(two.status).to.equal(400);
    expect(two.json.error).to.equal('send at most 1 file, in the "upload" field');
  });

  it('a malformed %-escape on a DeepStack path answers in DeepStack\'s shape', async () => {
    const answer = await deepStack('/v1/vision/custom/%E0%A4%A', 'object-detection', form({ image: dogJpeg() }));
    expect(answer.status).to.equal(400);
    expect(answer.json).to.deep.include({ success: false, code: 400 });
    expect(answer.json.error).to.contain('percent-escape');
  });

  it('a face registration without userid is refused and counted as a missing field', async () => {
    const count = async () => Number((await (await fetch(`${server.url}/metrics`)).text()).match(/^detectd_calls_total\{transport="http",code="missing_field"\} (\d+)/m)?.[1] ?? 0);
    const before = await count();
    const refused = await deepStack('/v1/vision/face/register', 'face-detection', form({ image: fs.readFileSync(cropPath('leonard', 1)) }));
    expect([refused.status, refused.json.error]).to.deep.equal([400, 'userid not specified']);
    expect(await count()).to.equal(before + 1);
  });
});
