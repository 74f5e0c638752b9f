import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { TASK_DESCRIPTIONS } from '../src/features/index.js';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { exampleCalls, examplePhotoOf } from '../src/tasks/example-calls.js';
import { modelPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const SWAGGER_UI_DIR = path.resolve('node_modules/swagger-ui-dist');

/** The shell example in an operation's description (a ```sh block). */
const exampleOf = (operation: { description: string }) => /```sh\n([\s\S]*?)\n```/.exec(operation.description)?.[1];

describe('API reference over HTTP: /openapi.json for the caller\'s base URL, /docs from node_modules', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.close());

  it('/openapi.json validates, names this server in `servers`, and every task\'s example calls it', async () => {
    const document = (await (await fetch(server.url + '/openapi.json')).json()) as any;
    const validation = await new Validator().validate(document);
    expect(validation.errors, JSON.stringify(validation.errors)).to.equal(undefined);
    expect(document.servers).to.deep.equal([{ url: server.url, description: 'this server' }]);
    expect(document.info.description, 'the reference names every service type, not objects alone').to.contain(`one route per service type (${TASK_DESCRIPTIONS.all.map((task) => task.type).join(', ')})`);
    for (const task of TASK_DESCRIPTIONS.all) {
      const operation = document.paths[`/api/v1/${task.type}`].post;
      expect(exampleOf(operation), task.type).to.equal(exampleCalls(task, `${server.url}/api/v1/${task.type}`, examplePhotoOf(task).file).curl);
      // "Try it" offers the first body form: the upload, with fields that are valid as filled in.
      const [first, ...others] = Object.keys(operation.requestBody.content);
      expect([first, ...others]).to.deep.equal(['multipart/form-data', 'image/*', 'application/octet-stream', 'application/json']);
      const fields = operation.requestBody.content['multipart/form-data'].schema.properties;
      expect(fields.image).to.include({ type: 'string', contentMediaType: 'image/*' });
      for (const [name, rule] of Object.entries(task.parameters)) if (rule.versions.includes('v1')) expect(fields[name].default, name).to.equal(rule.defaultValue);
    }
    // Every operation is in a group the reference shows, and every group is declared.
    const tags = new Set(document.tags.map((tag: { name: string }) => tag.name));
    for (const [route, operations] of Object.entries(document.paths) as [string, Record<string, { tags?: string[] }>][]) {
      for (const [method, operation] of Object.entries(operations)) expect(operation.tags?.every((tag) => tags.has(tag)) && operation.tags.length, `${method} ${route}`).to.equal(1);
    }
  });

  it('"try it" with the JSON body sends its example as it stands: it is a valid request, answered 200', async () => {
    const document = (await (await fetch(server.url + '/openapi.json')).json()) as any;
    for (const task of TASK_DESCRIPTIONS.all) {
      const { example } = document.paths[`/api/v1/${task.type}`].post.requestBody.content['application/json'];
      expect(new SchemaCatalogue(undefined, task.schemas).check(task.requestSchema, example), task.type).to.deep.equal({ ok: true });
      expect(example.configurations, 'the example calls\' fields').to.deep.equal(Object.entries(task.exampleFields).map(([parameter, value]) => ({ parameter, value })));
    }
    const [detection] = TASK_DESCRIPTIONS.all;
    const { example } = document.paths[`/api/v1/${detection.type}`].post.requestBody.content['application/json'];
    const answer = await fetch(`${server.url}/api/v1/${detection.type}`, { method: 'POST', headers: { Authorization: `ApiKey ${server.apiKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify(example) });
    expect(answer.status, await answer.clone().text()).to.equal(200);
    expect((await answer.json()) as object).to.have.property(detection.answerField).that.is.an('array');
  });

  it('/docs is Swagger UI from this server\'s node_modules: no other origin, its assets the package\'s files', async () => {
    const response = await fetch(server.url + '/docs');
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.contain('text/html');
    expect(response.headers.get('content-security-policy')).to.contain("script-src 'self'").and.contain("connect-src 'self'");
    const page = await response.text();
    expect(page, 'nothing from another origin: detectd works offline').to.not.match(/(src|href)="(https?:)?\/\//);
    const assets = [...page.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map((match) => match[1]);
    expect(assets).to.include.members(['/docs/swagger-ui/swagger-ui-bundle.js', '/docs/swagger-ui/swagger-ui.css', '/docs/assets/docs.js', '/docs/assets/docs.css']);
    for (const asset of assets) {
      const served = await fetch(server.url + asset);
      expect(served.status, asset).to.equal(200);
      const bytes = Buffer.from(await served.arrayBuffer());
      if (asset.startsWith('/docs/swagger-ui/')) expect(bytes.equals(fs.readFileSync(path.join(SWAGGER_UI_DIR, path.basename(asset)))), asset).to.equal(true);
    }
    // The 1.7 MB bundle travels gzip'd to a browser that takes it, whole to one that does not.
    const bundle = fs.readFileSync(path.join(SWAGGER_UI_DIR, 'swagger-ui-bundle.js'));
    const compressed = await new Promise<{ encoding?: string; bytes: Buffer }>((resolve, reject) =>
      http.get(`${server.url}/docs/swagger-ui/swagger-ui-bundle.js`, { headers: { 'Accept-Encoding': 'gzip' } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk)).on('end', () => resolve({ encoding: response.headers['content-encoding'], bytes: Buffer.concat(chunks) }));
      }).on('error', reject),
    );
    expect(compressed.encoding).to.equal('gzip');
    expect(compressed.bytes.length).to.be.below(bundle.length / 3);
    expect(zlib.gunzipSync(compressed.bytes).equals(bundle)).to.equal(true);
    const whole = await fetch(server.url + '/docs/swagger-ui/swagger-ui-bundle.js', { headers: { 'Accept-Encoding': 'identity' } });
    expect(whole.headers.get('content-encoding')).to.equal(null);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bundle)).to.equal(true);
    // Only what the page loads: not the package's demo page, which would load another API's document.
    expect((await fetch(server.url + '/docs/swagger-ui/index.html')).status).to.equal(404);
    expect((await fetch(server.url + '/docs/swagger-ui/swagger-initializer.js')).status).to.equal(404);
  });
});

describe('API reference behind a proxy: `servers` and examples follow DETECTD_PUBLIC_URL, or the trusted proxy\'s headers', () => {
  const forwarded = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'detect.example.com' };
  const documentOf = async (server: TestServer, headers: Record<string, string> = {}) => (await (await fetch(server.url + '/openapi.json', { headers })).json()) as any;
  const serversOf = async (server: TestServer, headers: Record<string, string> = {}) => (await documentOf(server, headers)).servers.map((entry: { url: string }) => entry.url);
  let untrusting: TestServer;
  let trusting: TestServer;
  let published: TestServer;
  before(async () => {
    // The document needs no particular model: the smallest loads fastest.
    const model = { DETECTD_MODEL: modelPath('yolox-nano-416') };
    [untrusting, trusting, published] = await Promise.all([
      startTestServer(model),
      startTestServer({ ...model, DETECTD_TRUST_PROXY: 'loopback' }),
      startTestServer({ ...model, DETECTD_TRUST_PROXY: 'loopback', DETECTD_PUBLIC_URL: 'https://vision.example.org' }),
    ]);
  });
  after(() => Promise.all([untrusting?.close(), trusting?.close(), published?.close()]));

  it('a trusted proxy\'s scheme and host are believed; anyone else\'s are not', async () => {
    expect(await serversOf(trusting, forwarded)).to.deep.equal(['https://detect.example.com']);
    expect(exampleOf((await documentOf(trusting, forwarded)).paths['/api/v1/object-detection'].post)).to.contain('curl -s https://detect.example.com/api/v1/object-detection');
    expect(await serversOf(untrusting, forwarded)).to.deep.equal([untrusting.url]);
  });

  it('DETECTD_PUBLIC_URL wins over the request, in `servers` and in the examples', async () => {
    expect(await serversOf(published, forwarded)).to.deep.equal(['https://vision.example.org']);
    expect(exampleOf((await documentOf(published)).paths['/api/v1/object-detection'].post)).to.contain('curl -s https://vision.example.org/api/v1/object-detection');
  });
});
