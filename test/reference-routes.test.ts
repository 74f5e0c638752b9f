import { expect } from 'chai';
import { ERROR_CATALOGUE } from '../src/api/errors.js';
import { startTestServer, type TestServer } from './support/test-server.js';

describe('health, readiness and API reference routes', () => {
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
    expect(Object.keys(document.paths)).to.include.members(['/api/v1/{serviceType}', '/api/{serviceType}', '/healthz', '/readyz']);
    expect(document.components.schemas.ObjectDetectionRequest.required).to.deep.equal(['raw_data']);
    expect(document.components.schemas.ErrorResponse.properties.error.properties.code.enum).to.deep.equal(Object.keys(ERROR_CATALOGUE));
    const v1 = document.paths['/api/v1/{serviceType}'].post;
    expect(v1.description).to.contain('OutputVisualizedImage');
    expect(document.paths['/api/{serviceType}'].post.description).to.not.contain('OutputVisualizedImage');
    expect(Object.keys(v1.responses)).to.include.members(['200', '400', '401', '403', '404', '405', '413', '415', '503', '500']);
  });

  it('GET /docs is a readable page listing parameters and every error code', async () => {
    const response = await fetch(server.url + '/docs');
    expect(response.headers.get('content-type')).to.contain('text/html');
    const page = await response.text();
    for (const code of Object.keys(ERROR_CATALOGUE)) expect(page).to.contain(code);
    expect(page).to.contain('ConfidenceThreshold').and.contain('OutputCroppedImage');
  });
});
