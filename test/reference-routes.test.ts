import fs from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { DESCRIBED_FEATURES, TASK_DESCRIPTIONS } from '../src/features/index.js';
import { parameterNames } from '../src/tasks/task.js';
import { NVISION_ANSWER_FIELDS } from '../src/transports/stream-paths.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import { photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';

/** Every error code the server answers (the core's and the features'), with its status and summary, in the catalogue's order. */
const CATALOGUE = DESCRIBED_FEATURES.errors.entries();
const CATALOGUE_ENTRIES = new Map<string, { status: number; summary: string }>(CATALOGUE);

describe('health, readiness, metrics and API reference routes', () => {
  let server: TestServer;
  const schemas = new SchemaCatalogue(undefined, TASK_DESCRIPTIONS.all.flatMap((task) => task.schemas ?? []));
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  it('GET /healthz and /readyz', async () => {
    expect(await (await fetch(server.url + '/healthz')).json()).to.deep.equal({ status: 'ok' });
    const ready = await fetch(server.url + '/readyz');
    expect(ready.status).to.equal(200);
    expect(await ready.json()).to.deep.equal({
      status: 'ready',
      // Every loaded model of every role: the face task's describer and the states task's embedder too, loaded and warmed up at start-up.
      models: ['yolo26n-640-int8', 'yunet-n', 'mobilenetv2-12-int8-emb', 'dlib-face-recognition-resnet'],
      model_kinds: { 'yolo26n-640-int8': 'objects', 'yunet-n': 'faces', 'mobilenetv2-12-int8-emb': 'image-embeddings', 'dlib-face-recognition-resnet': 'face-descriptors' },
      model_roles: { 'yolo26n-640-int8': 'detector', 'yunet-n': 'detector', 'mobilenetv2-12-int8-emb': 'embedder', 'dlib-face-recognition-resnet': 'describer' },
      database: 'reachable',
      storage: { state: 'ok' },
      services_without_model: [],
    });
  });

  it('GET /openapi.json is a valid OpenAPI 3.1 document of the task table\'s routes and the error catalogue', async () => {
    const document = (await (await fetch(server.url + '/openapi.json')).json()) as any;
    const validation = await new Validator().validate(document);
    expect(validation.errors, JSON.stringify(validation.errors)).to.equal(undefined);
    expect(validation.valid).to.equal(true);
    expect(document.openapi).to.equal('3.1.0');

    // The paths: both versions of every task, the DeepStack routes (the face task's too), the plate task's known plates, health and readiness (the video stream documents its own).
    const KNOWN_PLATE_ROUTES = ['', '/settings', '/{plate}'].map((route) => `/api/v1/license-plate/known-plates${route}`);
    // A states service's regions and examples (docs/states.md).
    const STATE_ROUTES = ['regions', 'regions/{name}', 'examples', 'examples/{id}'].map((route) => `/api/v1/region-states/${route}`);
    const FACE_ROUTES = ['face', 'face/recognize', 'face/register', 'face/list', 'face/delete', 'face/match'].map((route) => `/v1/vision/${route}`);
    // A face service's unknown people (docs/faces.md "Unknown people").
    const UNKNOWN_PEOPLE_ROUTES = ['', '/settings', '/{id}', '/{id}/faces/{faceId}/thumbnail', '/{id}/name', '/{id}/merge'].map((route) => `/api/v1/face-detection/unknown-people${route}`);
    const CORRECTION_ROUTES = ['add', 'not'].map((verb) => `/api/v1/face-detection/people/{userid}/${verb}`);
    // CompreFace's REST API over a face service's key (docs/faces.md "CompreFace's API").
    const COMPREFACE_ROUTES = [
      ...['recognition/recognize', 'recognition/faces', 'recognition/faces/delete', 'recognition/faces/{image_id}', 'recognition/faces/{image_id}/img', 'recognition/faces/{image_id}/verify'],
      ...['recognition/subjects', 'recognition/subjects/{subject}', 'static/{api_key}/images/{image_id}', 'detection/detect', 'verification/verify'],
    ].map((route) => `/api/v1/${route}`);
    const componentRef = (schemaName: string) => '#/components/schemas/' + String(schemas.schemas.get(schemaName)!.title);
    const taskPaths = TASK_DESCRIPTIONS.all.flatMap((task) => [`/api/v1/${task.type}`, `/api/${task.type}`]);
    expect(Object.keys(document.paths).filter((route) => !route.includes('/stream'))).to.have.members([...taskPaths, '/v1/vision/detection', '/v1/vision/custom/{model}', '/v1/vision/custom/list', ...FACE_ROUTES, '/v1/image/alpr', '/v1/vision/alpr', ...KNOWN_PLATE_ROUTES, ...STATE_ROUTES, '/v1/status/ping', '/v1/server/status/ping', '/v1/status/updateavailable', '/healthz', '/readyz', ...UNKNOWN_PEOPLE_ROUTES, ...CORRECTION_ROUTES, ...COMPREFACE_ROUTES]);
    const codesOf = (response: { description: string }) => [...response.description.matchAll(/`(\w+)`: /g)].map((match) => match[1]);
    for (const task of TASK_DESCRIPTIONS.all) {
      for (const [route, version] of [[`/api/v1/${task.type}`, 'v1'], [`/api/${task.type}`, 'legacy']] as const) {
        const operation = document.paths[route].post;
        // v1's path is also the Nvision stream's WebSocket upgrade (GET), as the official SDK opens it, where its protobuf has a field for the task's answer.
        expect(Object.keys(document.paths[route]), route).to.have.members(version === 'v1' && NVISION_ANSWER_FIELDS.has(task.answerField) ? ['post', 'get'] : ['post']);
        expect(operation.requestBody.content['application/json'].schema.$ref).to.equal(componentRef(task.requestSchema));
        expect(operation.responses['200'].content['application/json'].schema.$ref).to.equal(componentRef(task.responseSchema));
        for (const name of parameterNames(task.parameters, version)) expect(operation.description, `${route} documents ${name}`).to.contain(`\`${name}\``);
        // Every catalogue code, under its own status, with its summary.
        const documented = Object.entries(operation.responses)
          .filter(([status]) => status !== '200')
          .flatMap(([status, response]) => codesOf(response as { description: string }).map((code) => [code, Number(status)]));
        expect(documented.map(([code]) => code), route).to.have.members(CATALOGUE.map(([code]) => code));
        for (const [code, status] of documented) {
          const entry = CATALOGUE_ENTRIES.get(code as string)!;
          expect(status, code as string).to.equal(entry.status);
          expect(operation.responses[String(status)].description).to.contain(`\`${code}\`: ${entry.summary}`);
        }
      }
    }
    expect(document.paths['/api/object-detection'].post.description).to.contain('OutputVisualizedImage');
    // Every error code any operation mentions is in the catalogue, under the catalogue's status.
    for (const [route, operations] of Object.entries(document.paths) as [string, Record<string, any>][]) {
      for (const operation of Object.values(operations)) {
        for (const [status, response] of Object.entries(operation.responses as Record<string, { description: string }>)) {
          for (const code of codesOf(response)) expect(CATALOGUE_ENTRIES.get(code)?.status, `${route} ${status} ${code}`).to.equal(Number(status));
        }
      }
    }
    expect(document.components.schemas.ErrorResponse.properties.error.properties.code.enum).to.deep.equal(CATALOGUE.map(([code]) => code));
  });

  it('GET /metrics (Prometheus) counts requests by route pattern, status and code, and times each detection stage per model', async () => {
    const dog = imageRequest(photoPath('dog.jpg'));
    expect((await postDetection(server.url, dog, { apiKey: server.apiKey })).status).to.equal(200);
    expect((await postDetection(server.url, dog, { apiKey: 'dtd_' + 'Z'.repeat(43) })).status).to.equal(401);
    await fetch(server.url + '/no/such/thing');
    for (const asset of ['/console/assets/console.css', '/console/assets/console.js', '/docs/assets/docs.js']) expect((await fetch(server.url + asset)).status, asset).to.equal(200);
    const response = await fetch(server.url + '/metrics');
    expect(response.headers.get('content-type')).to.contain('text/plain');
    const text = await response.text();
    expect(text).to.contain('detectd_http_requests_total{route="/api/v1/:serviceType",status="200",code="none"} 1');
    expect(text).to.contain('detectd_http_requests_total{route="/console/assets/*",status="200",code="none"} 2');
    expect(text).to.contain('detectd_http_requests_total{route="/docs/assets/*",status="200",code="none"} 1');
    expect(text, 'only the unknown path is unmatched').to.not.match(/route="unmatched",status="200"/);
    expect(text).to.not.contain('code=""');
    expect(text).to.contain('detectd_http_requests_total{route="/api/v1/:serviceType",status="401",code="unauthorized"} 1');
    expect(text).to.contain('detectd_http_requests_total{route="unmatched",status="404",code="not_found"} 1');
    for (const stage of ['decode', 'preprocess', 'inference', 'postprocess', 'encode']) {
      expect(text).to.contain(`detectd_detection_stage_seconds_count{stage="${stage}",model="yolo26n-640-int8"} 1`);
    }
    expect(text).to.match(/detectd_detected_objects_total\{model="yolo26n-640-int8"\} [3-9]/);
    expect(text).to.contain('detectd_process_resident_memory_bytes');
    expect(text).to.not.contain(server.apiKey);
  });

  it('serves each feature\'s console scripts and stylesheets from its own folder, under /console/assets/<feature>/', async () => {
    const served = DESCRIBED_FEATURES.consoleAssets.flatMap(({ name, folder }) => fs.readdirSync(folder).map((file) => ({ url: `/console/assets/${name}/${file}`, bytes: fs.readFileSync(path.join(folder, file)) })));
    expect(served.map(({ url }) => url)).to.include.members(['/console/assets/faces/people.js', '/console/assets/plates/known-plates.js', '/console/assets/states/region-states.js']);
    for (const { url, bytes } of served) {
      const response = await fetch(server.url + url);
      expect(response.status, url).to.equal(200);
      expect(Buffer.from(await response.arrayBuffer()).equals(bytes), url).to.equal(true);
    }
    expect((await fetch(`${server.url}/console/assets/region-states.js`)).status, 'not beside the console shell\'s own').to.equal(404);
  });
});
