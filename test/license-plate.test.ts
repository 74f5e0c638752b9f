import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { refusedUpgrade, StreamClient } from '../scripts/lib/stream-client.js';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { TASK_DESCRIPTIONS } from '../src/features/index.js';
import { LICENSE_PLATE } from '../src/features/plates/license-plate-task.js';
import { DEFAULT_TEST_MODEL, SHARED_DIR } from './support/paths.js';
import { plateModelsFolder } from './support/plate-models.js';
import { cliAsync, requireBuild } from './support/processes.js';
import { FIRST_ACCOUNT, startTestServer, type TestServer } from './support/test-server.js';

const READER = 'cct_xs_v2_global';
const DETECTOR = 'yolo-v9-t-416-license-plates-end2end-int8';
const PHOTOS = path.join(SHARED_DIR, 'eval', 'plates', 'images');
/** Labelled photos of ../shared/eval/plates, one per region, and what their plate says. */
const LABELLED = [
  { file: 'us/wts-lg-000014.jpg', plate: 'DG2Z6U' },
  { file: 'br/JQS5683.jpg', plate: 'JQS5683' },
  { file: 'eu/eu1.jpg', plate: 'M5XSX' },
];
const photo = (file: string) => fs.readFileSync(path.join(PHOTOS, file));
const TASK = TASK_DESCRIPTIONS.named(LICENSE_PLATE);

interface Plate {
  name: string;
  parent: string;
  confidence: number;
  read_confidence: number;
  bounding_box: { left: number; right: number; top: number; bottom: number };
  country?: { name: string; confidence: number };
}

describe('license-plate task: real plate models, real photos, the real server', function () {
  // A photo larger than 640 px is also read in windows (docs/plates.md): several detector runs a call.
  this.timeout(300_000);
  let server: TestServer;
  let models: string;
  let apiKey: string;

  before(async () => {
    models = plateModelsFolder();
    server = await startTestServer({ DETECTD_MODELS_DIR: models });
    apiKey = await server.createService({ name: 'plates', type: 'license-plate' });
  });
  after(async () => {
    await server?.close();
    fs.rmSync(models, { recursive: true, force: true });
  });

  const post = (route: string, body: BodyInit, contentType: string) =>
    fetch(`${server.url}${route}`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': contentType }, body });

  it('loads the reader as the task\'s second model, listed by /readyz with its role and run through its own scheduler (its runs in the per-model metrics)', async () => {
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { model_roles: Record<string, string>; model_kinds: Record<string, string> };
    expect(ready.model_roles).to.include({ [READER]: 'reader', 'yolo-v9-t-416-license-plates-end2end-int8': 'detector' });
    expect(ready.model_kinds).to.include({ [READER]: 'plate-text', 'yolo-v9-t-416-license-plates-end2end-int8': 'plates' });
    const runsOf = async () => Number((await (await fetch(`${server.url}/metrics`)).text()).match(new RegExp(`^detectd_model_run_seconds_count\\{model="${READER}",role="reader"\\} (\\d+)`, 'm'))?.[1] ?? 0);
    const before = await runsOf();
    const read = await post('/api/v1/license-plate', new Uint8Array(photo(LABELLED[0].file)), 'image/jpeg');
    expect(read.status).to.equal(200);
    expect(await runsOf()).to.equal(before + 1);
  });

  it('the CLI beside the server creates a license-plate service naming the plate detector, and refuses its reader, which no service names', async function () {
    requireBuild();
    const { DETECTD_MODEL: _model, DETECTD_MODELS_DIR: _folder, ...shell } = process.env;
    const beside = { ...shell, DETECTD_DATA_DIR: server.dataDir, PORT: new URL(server.url).port, HOST: '127.0.0.1' };
    const create = (name: string, model: string) => cliAsync(['service', 'create', '--account', FIRST_ACCOUNT.email, '--name', name, '--type', 'license-plate', '--model', model, '--json'], beside);
    const created = await create('gate plates', DETECTOR);
    expect(created.status, created.stderr).to.equal(0);
    expect(JSON.parse(created.stdout)).to.include({ type: 'license-plate', model: DETECTOR });
    const reader = await create('reader plates', READER);
    expect(reader.status, reader.stderr).to.equal(1);
    expect(JSON.parse(reader.stderr).error.code).to.equal('unknown_model');
  });

  it('DETECTD_DEFAULT_MODEL names an object model: a wrong name is refused offering the object models only, a plate model stops start-up', async () => {
    const { DETECTD_MODEL: _model, DETECTD_MODELS_DIR: _folder, ...shell } = process.env;
    const settings = { ...shell, DETECTD_MODEL: DEFAULT_TEST_MODEL, DETECTD_MODELS_DIR: models };
    const misnamed = await cliAsync(['models', 'list'], { ...settings, DETECTD_DEFAULT_MODEL: 'yolo26n' });
    expect(misnamed.status, misnamed.stderr).to.equal(3);
    expect(misnamed.stderr).to.equal('detectd: DETECTD_DEFAULT_MODEL is "yolo26n", which is none of the configured object models: yolo26n-640-int8\n');
    const plates = await startTestServer({ DETECTD_MODELS_DIR: models, DETECTD_DEFAULT_MODEL: DETECTOR }).then(
      async (started) => {
        await started.close();
        return 'started';
      },
      (error: Error) => error.message,
    );
    expect(plates).to.equal(`DETECTD_DEFAULT_MODEL is "${DETECTOR}", a detector of plates: it names the default object model`);
  });

  it('DeepStack custom models are the object detectors: the plate models are neither in custom/list nor reached as custom/<name>, whose 404 lists what custom/list lists', async () => {
    const headers = { Authorization: `ApiKey ${server.apiKey}` };
    const list = (await (await fetch(`${server.url}/v1/vision/custom/list`, { method: 'POST', headers })).json()) as { models: string[] };
    expect(list.models).to.include('yolo26n-640-int8').and.not.include(DETECTOR).and.not.include(READER);
    const form = new FormData();
    form.set('image', new Blob([new Uint8Array(photo('eu/eu1.jpg'))], { type: 'image/jpeg' }), 'car.jpg');
    const refused = await fetch(`${server.url}/v1/vision/custom/${DETECTOR}`, { method: 'POST', headers, body: form });
    expect(refused.status).to.equal(404);
    expect(((await refused.json()) as { error: string }).error).to.contain(DETECTOR).and.contain(`loaded: ${list.models.join(', ')}`);
  });

  for (const { file, plate } of LABELLED) {
    it(`REST v1, legacy and a form: reads ${plate} on ${file} under detected_plates, valid against the task's schema`, async () => {
      const schemas = new SchemaCatalogue(undefined, TASK.schemas);
      const bytes = photo(file);
      const form = new FormData();
      form.append('image', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), 'car.jpg');
      const answers = [
        await post('/api/v1/license-plate', new Uint8Array(bytes), 'image/jpeg'),
        await post('/api/license-plate', JSON.stringify({ raw_data: bytes.toString('base64'), frame_id: 'f1' }), 'application/json'),
        await fetch(`${server.url}/api/v1/license-plate`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}` }, body: form }),
      ];
      for (const answer of answers) {
        expect(answer.status).to.equal(200);
        const body = (await answer.json()) as { detected_plates: Plate[] };
        expect(schemas.check(TASK.responseSchema, body)).to.deep.equal({ ok: true });
        const [found] = body.detected_plates;
        expect(found).to.include({ name: plate, parent: 'plate' });
        expect(found.confidence).to.be.within(0.25, 1);
        expect(found.read_confidence).to.be.within(0.8, 1);
        expect(found.bounding_box.right).to.be.greaterThan(found.bounding_box.left);
        expect(body).to.not.have.property('detected_objects');
      }
    });
  }

  it('gives the reader\'s country guess, crops and a visualization when asked', async () => {
    const answer = await post('/api/v1/license-plate?OutputCroppedImage=true&OutputVisualizedImage=true', new Uint8Array(photo('br/JQS5683.jpg')), 'image/jpeg');
    const body = (await answer.json()) as { detected_plates: (Plate & { cropped_image: string })[]; raw_data: string };
    expect(body.detected_plates[0].country?.name).to.be.a('string');
    expect(Buffer.from(body.detected_plates[0].cropped_image, 'base64').subarray(0, 2)).to.deep.equal(Buffer.from([0xff, 0xd8]));
    expect(Buffer.from(body.raw_data, 'base64').subarray(0, 2)).to.deep.equal(Buffer.from([0xff, 0xd8]));
  });

  it('refuses hostile input precisely: no image, zero bytes, a corrupt image, a parameter it does not take', async () => {
    const cases: [BodyInit, string, number, string][] = [
      [JSON.stringify({}), 'application/json', 400, 'invalid_request'],
      [new Uint8Array(0), 'image/jpeg', 400, 'invalid_image'],
      [new Uint8Array(photo('us/wts-lg-000014.jpg').subarray(0, 300)), 'image/jpeg', 400, 'invalid_image'],
      [new Uint8Array(Buffer.from('not an image at all')), 'image/jpeg', 400, 'invalid_image'],
    ];
    for (const [body, type, status, code] of cases) {
      const answer = await post('/api/v1/license-plate', body, type);
      const error = (await answer.json()) as { error: { code: string } };
      expect(answer.status, `${type} ${code}`).to.equal(status);
      expect(error.error.code).to.equal(code);
    }
    const wrong = await post('/api/v1/license-plate?TargetClasses=car', new Uint8Array(photo('eu/eu1.jpg')), 'image/jpeg');
    expect(wrong.status).to.equal(400);
  });

  /** Runs a client's request script (test/clients/) against `route` with `file`; its status and JSON answer. */
  async function client(script: string, route: string, file: string): Promise<{ status: number; json: Record<string, unknown> & { predictions: Record<string, unknown>[] } }> {
    const { stdout } = await promisify(execFile)('python3', [path.join('test', 'clients', script), `${server.url}${route}`, path.join(PHOTOS, file)]);
    return JSON.parse(stdout);
  }

  it('CodeProject.AI ALPR: AITool, Agent DVR and frigate_plate_recognizer, keyless from a range the service accepts, get its answer exactly', async () => {
    const service = await server.domain.keys.authenticate(apiKey);
    await server.domain.services.setKeylessAddressRanges(service!, '');
    const scripts = [
      ['aitool_alpr_request.py', '/v1/image/alpr'],
      ['agent_dvr_alpr_request.py', '/v1/image/alpr'],
      ['frigate_plate_recognizer_request.py', '/v1/vision/alpr'],
    ];
    for (const [script, route] of scripts) {
      for (const { file, plate } of LABELLED) {
        const { status, json } = await client(script, route, file);
        expect(status, `${script} ${file}`).to.equal(200);
        expect(json).to.include({ success: true, message: `Found Plate: ${plate}`, count: 1 });
        expect(json.processMs).to.be.a('number');
        expect(json.inferenceMs).to.be.a('number');
        const [prediction] = json.predictions;
        expect(prediction).to.include({ label: `Plate: ${plate}`, plate });
        for (const field of ['confidence', 'x_min', 'y_min', 'x_max', 'y_max']) expect(prediction[field], field).to.be.a('number');
      }
    }
    // A photo without a vehicle, where the detector fires on other text: the reader's filter leaves no plate.
    const none = await client('agent_dvr_alpr_request.py', '/v1/image/alpr', path.join('..', '..', 'coco-val122', 'images', '000000002587.jpg'));
    expect(none.json).to.include({ success: true, message: 'No plates found', count: 0 });
  });

  it('CodeProject.AI ALPR: no file, zero bytes, a corrupt image or a wrong key → 4xx {success: false, error}', async () => {
    const alpr = (form: FormData, headers: Record<string, string> = {}) => fetch(`${server.url}/v1/image/alpr`, { method: 'POST', headers, body: form });
    const withFile = (bytes: Buffer) => {
      const form = new FormData();
      form.append('upload', new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' }), 'car.jpg');
      return form;
    };
    const empty = new FormData();
    empty.append('api_key', apiKey);
    const cases: [Response, number][] = [
      [await alpr(empty), 400],
      [await alpr(withFile(Buffer.alloc(0)), { Authorization: `ApiKey ${apiKey}` }), 400],
      [await alpr(withFile(photo('eu/eu1.jpg').subarray(0, 300)), { Authorization: `ApiKey ${apiKey}` }), 400],
      [await alpr(withFile(photo('eu/eu1.jpg')), { Authorization: 'ApiKey wrong' }), 401],
    ];
    for (const [answer, status] of cases) {
      expect(answer.status).to.equal(status);
      const body = (await answer.json()) as { success: boolean; error: string };
      expect(body.success).to.equal(false);
      expect(body.error).to.be.a('string').and.not.equal('');
    }
  });

  it('through the gate like every task: counted in the metrics (its model, the reader\'s recognize stage), held to the service\'s rate limit on REST and ALPR alike', async () => {
    expect((await post('/api/v1/license-plate', new Uint8Array(photo('eu/eu1.jpg')), 'image/jpeg')).status, 'a plate read, to count').to.equal(200);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const found = metrics.match(/^detectd_detected_objects_total\{model="yolo-v9-t-416-license-plates-end2end-int8"\} (\d+)/m);
    expect(Number(found?.[1])).to.be.greaterThan(0);
    expect(metrics).to.match(/^detectd_detection_stage_seconds_count\{stage="recognize",model="yolo-v9-t-416-license-plates-end2end-int8"\} [1-9]/m);

    const limitedKey = await server.createService({ name: 'one a minute', type: 'license-plate' });
    const limited = (await server.domain.keys.authenticate(limitedKey))!;
    await server.domain.services.setLimits(limited, { rateLimitPerMinute: 1, monthlyQuota: null });
    const rest = () => fetch(`${server.url}/api/v1/license-plate`, { method: 'POST', headers: { Authorization: `ApiKey ${limitedKey}`, 'Content-Type': 'image/jpeg' }, body: new Uint8Array(photo('eu/eu1.jpg')) });
    expect((await rest()).status).to.equal(200);
    expect((await rest()).status).to.equal(429);
    const form = new FormData();
    form.append('upload', new Blob([new Uint8Array(photo('eu/eu1.jpg'))], { type: 'image/jpeg' }), 'car.jpg');
    const alpr = await fetch(`${server.url}/v1/image/alpr`, { method: 'POST', headers: { Authorization: `ApiKey ${limitedKey}` }, body: form });
    expect(alpr.status).to.equal(429);
    expect(await alpr.json()).to.include({ success: false });
  });

  it('JSON stream: the plates under detected_plates; the Nvision stream refuses, naming the answer field', async () => {
    const client = await StreamClient.open(`${server.url.replace(/^http/, 'ws')}/api/v1/license-plate/stream`, { headers: { Authorization: `ApiKey ${apiKey}` } });
    client.sendJson({ type: 'start' });
    client.sendFrame(photo('eu/eu1.jpg'), 'one');
    const [result] = (await client.waitFor((messages) => messages.some((message) => message.type === 'result'))).filter((message) => message.type === 'result');
    expect(result.detected_plates.map((plate: Plate) => plate.name)).to.deep.equal(['M5XSX']);
    await client.close();
    const refused = await refusedUpgrade(`${server.url.replace(/^http/, 'ws')}/api/v1/license-plate`, { headers: { Authorization: `ApiKey ${apiKey}` } });
    expect(refused.status).to.equal(404);
    expect(refused.body.error.message).to.contain('detected_plates');
  });
});
