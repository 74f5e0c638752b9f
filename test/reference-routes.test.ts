import { expect } from 'chai';
import { ERROR_CATALOGUE } from '../src/core/errors.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import { photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';

describe('health, readiness, metrics and API reference routes', () => {
  let server: TestServer;
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
    expect(await ready.json()).to.deep.equal({ status: 'ready', models: ['yolo26n-640-int8'], database: 'reachable' });
  });

  it('GET /openapi.json is OpenAPI 3.1 built from schemas/ and the error table', async () => {
    const document = (await (await fetch(server.url + '/openapi.json')).json()) as any;
    expect(document.openapi).to.equal('3.1.0');
    expect(Object.keys(document.paths)).to.include.members(['/api/v1/object-detection', '/api/object-detection', '/healthz', '/readyz']);
    expect(document.components.schemas.ObjectDetectionRequest.required).to.deep.equal(['raw_data']);
    expect(document.components.schemas.ErrorResponse.properties.error.properties.code.enum).to.deep.equal(Object.keys(ERROR_CATALOGUE));
    const v1 = document.paths['/api/v1/object-detection'].post;
    expect(v1.description).to.contain('OutputVisualizedImage');
    expect(document.paths['/api/object-detection'].post.description).to.contain('OutputVisualizedImage');
    expect(Object.keys(v1.responses)).to.include.members(['200', '400', '401', '403', '404', '405', '413', '415', '503', '500']);
  });

  it('GET /docs is a readable page listing parameters and every error code', async () => {
    const response = await fetch(server.url + '/docs');
    expect(response.headers.get('content-type')).to.contain('text/html');
    const page = await response.text();
    for (const code of Object.keys(ERROR_CATALOGUE)) expect(page).to.contain(code);
    expect(page).to.contain('ConfidenceThreshold').and.contain('OutputCroppedImage');
  });

  it('GET /metrics (Prometheus) counts requests by route pattern, status and code, and times each detection stage per model', async () => {
    const dog = imageRequest(photoPath('dog.jpg'));
    expect((await postDetection(server.url, dog, { apiKey: server.apiKey })).status).to.equal(200);
    expect((await postDetection(server.url, dog, { apiKey: 'dtd_' + 'Z'.repeat(43) })).status).to.equal(401);
    await fetch(server.url + '/no/such/thing');
    const response = await fetch(server.url + '/metrics');
    expect(response.headers.get('content-type')).to.contain('text/plain');
    const text = await response.text();
    expect(text).to.contain('detectd_http_requests_total{route="/api/v1/:serviceType",status="200",code=""} 1');
    expect(text).to.contain('detectd_http_requests_total{route="/api/v1/:serviceType",status="401",code="unauthorized"} 1');
    expect(text).to.contain('detectd_http_requests_total{route="unmatched",status="404",code="not_found"} 1');
    for (const stage of ['decode', 'preprocess', 'inference', 'postprocess', 'encode']) {
      expect(text).to.contain(`detectd_detection_stage_seconds_count{stage="${stage}",model="yolo26n-640-int8"} 1`);
    }
    expect(text).to.match(/detectd_detected_objects_total\{model="yolo26n-640-int8"\} [3-9]/);
    expect(text).to.contain('detectd_process_resident_memory_bytes');
    expect(text).to.not.contain(server.apiKey);
  });
});
