import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startLocalServer } from '../scripts/lib/local-server.js';
import { DESCRIBED_FEATURES, TASK_DESCRIPTIONS } from '../src/features/index.js';
import { deepStackRouteTable } from '../src/transports/deepstack/deepstack-route-table.js';
import { DOG_SIZE, dogJpeg } from './support/images.js';
import { modelPath, photoPath } from './support/paths.js';
import { cli, requireBuild } from './support/processes.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { TEST_INFERENCE_SETTINGS } from './support/inference-settings.js';

const PACKAGE_VERSION = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string }).version;
const DEFAULT_MODEL = 'yolo26n-640-int8';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** One request over node:http, so that the answer's framing headers are seen as sent. */
function call(url: string, init: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: init.method ?? 'GET', headers: init.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode!, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) });
      });
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

/** A multipart form, encoded as a browser or `requests` would send it. */
async function multipart(fields: Record<string, string>, image?: Buffer): Promise<{ headers: Record<string, string>; body: Buffer }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (image) form.append('image', new Blob([new Uint8Array(image)], { type: 'image/jpeg' }), 'frame.jpg');
  const encoded = new Request('http://localhost/', { method: 'POST', body: form });
  return { headers: { 'Content-Type': encoded.headers.get('content-type')! }, body: Buffer.from(await encoded.arrayBuffer()) };
}

const urlEncoded = (fields: Record<string, string>) => ({ headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });

/** Blue Iris's housekeeping calls and CodeProject.AI's extra fields, over the real server. */
describe('CodeProject.AI housekeeping calls (custom model list, ping, update check) and answer framing', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(async () => server?.close());

  it('POST /v1/vision/custom/list lists the loaded model: without a key, with a form-encoded or multipart api_key, with Authorization', async () => {
    const list = `${server.url}/v1/vision/custom/list`;
    const answers = [
      await call(list, { method: 'POST' }),
      await call(list, { method: 'POST', ...urlEncoded({ api_key: server.apiKey }) }),
      await call(list, { method: 'POST', ...(await multipart({ api_key: server.apiKey })) }),
      await call(list, { method: 'POST', headers: { Authorization: `Bearer ${server.apiKey}`, 'X-Request-Id': 'blue-iris-1' } }),
    ];
    for (const answer of answers) {
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      expect(answer.body).to.deep.include({ success: true, models: [DEFAULT_MODEL], command: 'list-custom', moduleId: 'detectd', inferenceDevice: 'CPU', code: 200 });
      expect(answer.body.requestId).to.equal(answer.headers['x-request-id']);
      expect(answer.body.message).to.equal('1 custom model found');
    }
    expect(answers[3].body.requestId).to.equal('blue-iris-1');

    // A key that is sent is checked, in a field or a header.
    for (const wrong of [await call(list, { method: 'POST', ...urlEncoded({ api_key: 'dtd_wrong' }) }), await call(list, { method: 'POST', headers: { Authorization: 'ApiKey dtd_wrong' } })]) {
      expect(wrong.status).to.equal(401);
      expect(wrong.body).to.include({ success: false, code: 401 });
      expect(wrong.body.error).to.match(/^Incorrect api key/);
    }
    const get = await call(list);
    expect(get.status).to.equal(405);
    expect(get.headers.allow).to.equal('POST');
  });

  it('GET /v1/status/ping and /v1/server/status/ping answer the version, without a key', async () => {
    for (const ping of ['/v1/status/ping', '/v1/server/status/ping']) {
      const answer = await call(`${server.url}${ping}`);
      expect(answer.status).to.equal(200);
      const [major, minor, patch] = PACKAGE_VERSION.split('.').map(Number);
      expect(answer.body).to.deep.equal({
        success: true,
        message: PACKAGE_VERSION,
        version: { major, minor, patch, preRelease: null, securityUpdate: false, build: 0, file: null, releaseNotes: null },
      });
    }
    expect((await call(`${server.url}/v1/status/ping`, { method: 'POST' })).status).to.equal(405);
  });

  it('GET /v1/status/updateavailable: success, no update, this version as current and latest', async () => {
    const answer = await call(`${server.url}/v1/status/updateavailable`);
    expect(answer.status).to.equal(200);
    expect(answer.body).to.include({ success: true, updateAvailable: false });
    expect(answer.body.current).to.deep.equal(answer.body.latest);
    expect(answer.body.version).to.deep.equal(answer.body.current);
    expect(answer.body.current.major).to.equal(Number(PACKAGE_VERSION.split('.')[0]));
    expect(answer.body.message).to.contain(PACKAGE_VERSION).and.contain('does not check for updates');
  });

  it('a detection answer carries requestId (the X-Request-Id) and inferenceDevice among CodeProject.AI\'s fields', async () => {
    const form = await multipart({ api_key: server.apiKey }, dogJpeg());
    for (const route of ['/v1/vision/detection', `/v1/vision/custom/${DEFAULT_MODEL}`]) {
      const answer = await call(`${server.url}${route}`, { method: 'POST', headers: { ...form.headers, 'X-Request-Id': 'frame-42' }, body: form.body });
      expect(answer.status).to.equal(200);
      expect(answer.body).to.include({ success: true, requestId: 'frame-42', inferenceDevice: 'CPU', moduleName: 'detectd' });
      expect(answer.body.predictions.map((prediction: { label: string }) => prediction.label)).to.include('dog');
    }
  });

  it('every DeepStack route answers with Content-Length, never chunked: successes and failures alike', async () => {
    const faceKey = await server.createService({ name: 'faces', type: 'face-detection' });
    // The dog photo has no face and these forms no userid: the face routes that need one answer their 400.
    // This server has no plate models: the plate routes refuse the object service's key (403, a service of another type).
    const refusals: Record<string, number> = { '/v1/vision/face/register': 400, '/v1/vision/face/delete': 400, '/v1/vision/face/match': 400, '/v1/image/alpr': 403, '/v1/vision/alpr': 403 };
    for (const route of deepStackRouteTable(TASK_DESCRIPTIONS, DESCRIBED_FEATURES.deepStack)) {
      const form = await multipart({ api_key: route.task?.lead.kind === 'faces' ? faceKey : server.apiKey }, dogJpeg());
      const url = `${server.url}${route.path.replace(':model', DEFAULT_MODEL)}`;
      const success = route.method === 'post' ? await call(url, { method: 'POST', headers: form.headers, body: form.body }) : await call(url);
      const failure = await call(url, { method: route.method === 'post' ? 'PUT' : 'POST' });
      for (const [what, answer] of [['success', success], ['failure', failure]] as const) {
        const label = `${route.method.toUpperCase()} ${route.path} (${what})`;
        expect(answer.status, label).to.equal(what === 'success' ? (refusals[route.path] ?? 200) : 405);
        expect(answer.headers['transfer-encoding'], label).to.equal(undefined);
        expect(Number(answer.headers['content-length']), label).to.equal(Buffer.byteLength(JSON.stringify(answer.body)));
      }
    }
  });

  it('every DeepStack route answers a wrong method 405 with its own method in Allow, in DeepStack\'s shape', async () => {
    for (const route of deepStackRouteTable(TASK_DESCRIPTIONS, DESCRIBED_FEATURES.deepStack)) {
      const url = `${server.url}${route.path.replace(':model', DEFAULT_MODEL)}`;
      for (const method of ['GET', 'POST', 'PUT', 'DELETE'].filter((each) => each !== route.method.toUpperCase())) {
        const answer = await call(url, { method });
        const label = `${method} ${route.path}`;
        expect(answer.status, label).to.equal(405);
        expect(answer.headers.allow, label).to.equal(route.method.toUpperCase());
        expect(answer.body, label).to.include({ success: false, code: 405 });
      }
    }
  });

  it('the OpenAPI document lists every DeepStack / CodeProject.AI route of the table', async () => {
    const document = (await call(`${server.url}/openapi.json`)).body;
    for (const route of deepStackRouteTable(TASK_DESCRIPTIONS, DESCRIBED_FEATURES.deepStack)) {
      const operation = document.paths[route.path.replace(':model', '{model}')]?.[route.method];
      // A route naming its task's own things (states' cameras) shares the model route's operation, which describes it.
      if (route.namesOwn) expect(operation.description, `${route.method} ${route.path}`).to.contain(route.summary);
      else expect(operation, `${route.method} ${route.path}`).to.include({ operationId: route.operationId, summary: route.summary });
    }
  });
});

describe('model aliases and a per-model cap (model configuration), as Blue Iris and Frigate configure CodeProject.AI', () => {
  let repository: string;

  beforeEach(() => {
    repository = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-aliases-'));
    fs.symlinkSync(modelPath(DEFAULT_MODEL), path.join(repository, `${DEFAULT_MODEL}.onnx`));
  });
  afterEach(() => fs.rmSync(repository, { recursive: true, force: true }));

  const configure = (name: string, description: object) => fs.writeFileSync(path.join(repository, `${name}.json`), JSON.stringify(description));

  it('serves custom/ipcam-general and custom/general with the aliased model, lists the aliases, and caps its predictions', async () => {
    configure(DEFAULT_MODEL, { aliases: ['ipcam-general', 'general'], maxDetections: 2 });
    const server = await startLocalServer({ DETECTD_MODELS_DIR: repository, ...TEST_INFERENCE_SETTINGS });
    try {
      const list = await call(`${server.url}/v1/vision/custom/list`, { method: 'POST' });
      expect(list.body.models).to.deep.equal([DEFAULT_MODEL, 'ipcam-general', 'general']);
      const form = await multipart({ api_key: server.apiKey, min_confidence: '0.05' }, dogJpeg());
      for (const name of ['ipcam-general', 'general', DEFAULT_MODEL]) {
        const answer = await call(`${server.url}/v1/vision/custom/${name}`, { method: 'POST', headers: form.headers, body: form.body });
        expect(answer.status, name).to.equal(200);
        expect(answer.body.count, name).to.equal(2);
        expect(answer.body.predictions.map((prediction: { label: string }) => prediction.label).sort(), name).to.deep.equal(['bicycle', 'dog']);
      }
      expect((await call(`${server.url}/v1/vision/custom/ipcam-combined`, { method: 'POST', headers: form.headers, body: form.body })).status).to.equal(404);
      // Frigate's deepstack detector (its request and reading, run by Python; the server is in this process, so not synchronously) on the capped model: two rows, dog and bicycle.
      const { stdout } = await promisify(execFile)('python3', ['test/clients/frigate_deepstack_request.py', `${server.url}/v1/vision/custom/general`, server.apiKey, photoPath('dog.jpg'), String(DOG_SIZE.width), String(DOG_SIZE.height)]);
      const frigate = JSON.parse(stdout) as { status: number; detections: number[][] };
      expect(frigate.status).to.equal(200);
      expect(frigate.detections.map(([label]) => label).sort((a, b) => a - b)).to.deep.equal([1, 16]);
    } finally {
      await server.close();
    }
  });

  it('refuses to start when an alias is another model\'s name, or a model is named or aliased "list"; `detectd models list` says so too', async () => {
    requireBuild();
    fs.symlinkSync(modelPath('yolo11n-320-int8'), path.join(repository, 'yolo11n-320-int8.onnx'));
    const settings = { DETECTD_MODELS_DIR: repository, DETECTD_INFERENCE_CONCURRENCY: '1' };
    const startFailure = () => startLocalServer(settings).then(
      async (server) => {
        await server.close();
        return 'started';
      },
      (error: Error) => error.message,
    );
    configure('yolo11n-320-int8', { aliases: ['general', DEFAULT_MODEL] });
    const clash = `model "yolo11n-320-int8" has the alias "${DEFAULT_MODEL}", which is the name of model "${DEFAULT_MODEL}"; change one of their configuration files`;
    expect(await startFailure()).to.equal(clash);
    const listed = cli(['models', 'list', '--json'], { ...process.env, ...settings });
    expect(listed.status, listed.stderr).to.equal(1);
    expect(JSON.parse(listed.stdout)).to.deep.include({ names_refused: clash });
    configure(DEFAULT_MODEL, { aliases: ['general'] });
    configure('yolo11n-320-int8', { aliases: ['general'] });
    expect(await startFailure()).to.contain('has the alias "general", which is an alias of model');
    configure('yolo11n-320-int8', { aliases: ['list'] });
    expect(await startFailure()).to.equal(
      'model "yolo11n-320-int8" is named or aliased "list", which is the path of CodeProject.AI\'s custom model list (/v1/vision/custom/list); rename it',
    );
  });
});
