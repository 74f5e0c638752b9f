import { execFile } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { ConsoleClient } from './support/console-client.js';
import { describeEachEngine } from './support/engines.js';
import { DOG_SIZE, dogJpeg } from './support/images.js';
import { photoPath } from './support/paths.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { consoleUsageRequests } from './support/usage.js';

const run = promisify(execFile);
const CLIENTS = path.resolve('test/clients');
const DOG = photoPath('dog.jpg');

type Prediction = { label: string; confidence: number; x_min: number; y_min: number; x_max: number; y_max: number };

/** Where dog.jpg's objects are (x1, y1, x2, y2), as in detection-api.test.ts. */
const DOG_PHOTO_OBJECTS: Record<string, number[]> = { dog: [133, 220, 309, 545], bicycle: [128, 128, 566, 430], truck: [461, 71, 685, 172] };

function iou(prediction: Prediction, [x1, y1, x2, y2]: number[]): number {
  const width = Math.min(prediction.x_max, x2) - Math.max(prediction.x_min, x1);
  const height = Math.min(prediction.y_max, y2) - Math.max(prediction.y_min, y1);
  if (width <= 0 || height <= 0) return 0;
  const intersection = width * height;
  return intersection / ((prediction.x_max - prediction.x_min) * (prediction.y_max - prediction.y_min) + (x2 - x1) * (y2 - y1) - intersection);
}

function expectDogPhoto(predictions: Prediction[]): void {
  for (const [label, box] of Object.entries(DOG_PHOTO_OBJECTS)) {
    const found = predictions.find((prediction) => prediction.label === label);
    expect(found, `${label} found`).to.not.equal(undefined);
    expect(iou(found!, box), `${label} box`).to.be.greaterThan(0.8);
  }
  const confidences = predictions.map((prediction) => prediction.confidence);
  expect(confidences).to.deep.equal([...confidences].sort((a, b) => b - a));
}

/** deepstack-python's request (test/clients/deepstack_python_request.py), run by Python `requests`. */
async function deepstackPython(url: string, apiKey: string, options: { minConfidence?: string; customModel?: string; image?: string } = {}) {
  const args = [path.join(CLIENTS, 'deepstack_python_request.py'), url, apiKey, options.image ?? DOG, options.minConfidence ?? '-'];
  if (options.customModel) args.push(options.customModel);
  const { stdout } = await run('python3', args);
  return JSON.parse(stdout) as { status: number; json: any; error?: string };
}

/** A multipart POST from a chosen local address (127.0.0.2 is this machine too, but not 127.0.0.1). */
async function postFormFrom(localAddress: string, url: string, form: FormData, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const encoded = new Request(url, { method: 'POST', body: form });
  const body = Buffer.from(await encoded.arrayBuffer());
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', localAddress, headers: { 'Content-Type': encoded.headers.get('content-type')!, 'Content-Length': body.length, ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

function dogForm(fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('image', new Blob([new Uint8Array(dogJpeg())], { type: 'image/jpeg' }), 'dog.jpg');
  return form;
}

describe('DeepStack / CodeProject.AI routes (real clients, real server, real model)', () => {
  let server: TestServer;
  const detection = () => `${server.url}/v1/vision/detection`;

  before(async () => {
    server = await startTestServer({ DETECTD_SIGNUP: 'open' });
  });
  after(async () => server?.close());

  it("deepstack-python's request: dog.jpg → dog, bicycle and truck with DeepStack's and CodeProject.AI's fields", async () => {
    const { status, json } = await deepstackPython(server.url, server.apiKey, { minConfidence: '0.45' });
    expect(status).to.equal(200);
    expect(json).to.include({ success: true, count: json.predictions.length, command: 'detect', moduleId: 'detectd', inferenceDevice: 'CPU', code: 200 });
    expect(json.requestId).to.be.a('string').and.not.equal('');
    expect(json.duration).to.be.a('number');
    for (const field of ['inferenceMs', 'processMs', 'analysisRoundTripMs']) expect(json[field], field).to.be.a('number').and.to.be.at.least(0);
    expect(json.message).to.match(/^Found /).and.to.contain('dog');
    expect(new Date(json.timestampUTC).getTime()).to.be.greaterThan(0);
    for (const prediction of json.predictions as Prediction[]) {
      expect(Object.keys(prediction).sort()).to.deep.equal(['confidence', 'label', 'x_max', 'x_min', 'y_max', 'y_min']);
      expect(prediction.confidence).to.be.at.least(0.45);
      expect(Number.isInteger(prediction.x_min) && Number.isInteger(prediction.y_max)).to.equal(true);
    }
    expectDogPhoto(json.predictions);
  });

  it('respects min_confidence, and defaults to DeepStack\'s 0.4', async () => {
    const strict = await deepstackPython(server.url, server.apiKey, { minConfidence: '0.8' });
    const loose = await deepstackPython(server.url, server.apiKey, { minConfidence: '0.05' });
    const byDefault = await deepstackPython(server.url, server.apiKey);
    expect(strict.json.predictions.every((prediction: Prediction) => prediction.confidence >= 0.8)).to.equal(true);
    expect(strict.json.predictions.map((prediction: Prediction) => prediction.label)).to.include.members(['dog', 'bicycle']);
    expect(strict.json.predictions).to.have.length.below(3);
    expect(loose.json.predictions.length).to.be.greaterThan(strict.json.predictions.length);
    expect(byDefault.json.predictions.every((prediction: Prediction) => prediction.confidence >= 0.4)).to.equal(true);
    expect(byDefault.json.predictions.length).to.be.within(strict.json.predictions.length, loose.json.predictions.length);
    const tooHigh = await deepstackPython(server.url, server.apiKey, { minConfidence: '1.5' });
    expect(tooHigh).to.deep.include({ status: 400, json: { success: false, error: 'min_confidence cannot be greater than 1', duration: 0, code: 400 } });
    const notANumber = await deepstackPython(server.url, server.apiKey, { minConfidence: 'high' });
    expect(notANumber.status).to.equal(400);
    expect(notANumber.json.error).to.equal('Invalid value for min_confidence');
  });

  it('picks a loaded model by name on /v1/vision/custom/<model>; an unknown one is a DeepStack-style 404', async () => {
    const found = await deepstackPython(server.url, server.apiKey, { customModel: 'yolo26n-640-int8', minConfidence: '0.45' });
    expect(found.status).to.equal(200);
    expect(found.json.command).to.equal('custom');
    expectDogPhoto(found.json.predictions);
    const unknown = await deepstackPython(server.url, server.apiKey, { customModel: 'licence-plates' });
    expect(unknown.status).to.equal(404);
    expect(unknown.error).to.match(/^Bad url supplied/);
    expect(unknown.json.success).to.equal(false);
    expect(unknown.json.error).to.match(/licence-plates/);
  });

  it('refuses a bad key the way DeepStack does (401, success false), before the image is read', async () => {
    const refused = await deepstackPython(server.url, 'dtd_not-a-real-key');
    expect(refused.status).to.equal(401);
    expect(refused.error).to.equal('Error from Deepstack request, status code: 401');
    expect(refused.json).to.include({ success: false, duration: 0, code: 401 });
    expect(refused.json.error).to.match(/^Incorrect api key/);
    // With no key at all and keyless calls off (the default): refused too.
    const none = await deepstackPython(server.url, '');
    expect(none.status).to.equal(401);
    const line = server.logText().split('\n').reverse().find((entry) => entry.includes('/v1/vision/detection') && entry.includes('"status":401'));
    expect(line, 'logged').to.not.equal(undefined);
    expect(line).to.not.contain('dtd_not-a-real-key');
  });

  it('accepts the key in Authorization too, and in a field after the image (as `curl -F image=@… -F api_key=…` sends it)', async () => {
    const keyLast = dogForm();
    keyLast.append('api_key', server.apiKey);
    const late = await fetch(detection(), { method: 'POST', body: keyLast });
    expect(late.status).to.equal(200);
    const response = await fetch(detection(), { method: 'POST', body: dogForm(), headers: { Authorization: `ApiKey ${server.apiKey}` } });
    expect(response.status).to.equal(200);
    expectDogPhoto(((await response.json()) as { predictions: Prediction[] }).predictions);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).to.match(/detectd_http_requests_total\{route="\/v1\/vision\/detection",status="200",code="none"\} [1-9]/);
    expect(metrics).to.match(/detectd_http_requests_total\{route="\/v1\/vision\/detection",status="401",code="unauthorized"\} [1-9]/);
  });

  it('answers a form without an image, a broken form and two files in DeepStack\'s error shape', async () => {
    const noImage = new FormData();
    noImage.append('api_key', server.apiKey);
    const missing = await fetch(detection(), { method: 'POST', body: noImage });
    expect(missing.status).to.equal(400);
    expect(await missing.json()).to.deep.equal({ success: false, error: 'No valid image file found', duration: 0, code: 400 });

    const broken = await fetch(detection(), { method: 'POST', body: '--xyz\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\n\r\nabc', headers: { 'Content-Type': 'multipart/form-data; boundary=xyz', Authorization: `ApiKey ${server.apiKey}` } });
    expect(broken.status).to.equal(400);
    expect(await broken.json()).to.include({ success: false, code: 400 });

    const twoFiles = dogForm({ api_key: server.apiKey });
    twoFiles.append('image', new Blob([new Uint8Array(dogJpeg())]), 'again.jpg');
    const two = await fetch(detection(), { method: 'POST', body: twoFiles });
    expect(two.status).to.equal(400);
    expect(((await two.json()) as { error: string }).error).to.match(/one file/);

    const notAnImage = new FormData();
    notAnImage.append('api_key', server.apiKey);
    notAnImage.append('image', new Blob(['hello']), 'hello.txt');
    const invalid = await fetch(detection(), { method: 'POST', body: notAnImage });
    expect(invalid.status).to.equal(400);
    expect(((await invalid.json()) as { error: string }).error).to.match(/^invalid image/);

    const get = await fetch(detection());
    expect(get.status).to.equal(405);
    expect(await get.json()).to.include({ success: false });
  });

  it('a per-service cap on DeepStack predictions (for Frigate\'s at most 20): the most confident only, in that service\'s DeepStack answers only', async () => {
    const apiKey = await server.createService({ email: 'capped@example.com', name: 'frigate' });
    const service = (await server.domain.keys.authenticate(apiKey))!;
    const detect = async () => {
      const answer = await fetch(detection(), { method: 'POST', headers: { Authorization: `Bearer ${apiKey}` }, body: dogForm({ min_confidence: '0.05' }) });
      expect(answer.status).to.equal(200);
      return ((await answer.json()) as { predictions: Prediction[]; count: number });
    };
    const uncapped = await detect();
    expect(uncapped.predictions.length, 'dog.jpg at 0.05 finds more than the cap').to.be.greaterThan(2);

    await server.domain.services.setLimits(service, { rateLimitPerMinute: null, monthlyQuota: null, deepStackMaxPredictions: 2 });
    const capped = await detect();
    expect(capped.predictions).to.deep.equal(uncapped.predictions.slice(0, 2));
    expect(capped.count).to.equal(2);
    const rest = await fetch(`${server.url}/api/v1/object-detection?ConfidenceThreshold=0.05`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'image/jpeg' }, body: new Uint8Array(dogJpeg()) });
    expect(((await rest.json()) as { detected_objects: unknown[] }).detected_objects.length, 'the REST answer is not capped').to.equal(uncapped.predictions.length);
    // Limits set without the cap (the console's form) keep it; null removes it.
    await server.domain.services.setLimits(service, { rateLimitPerMinute: null, monthlyQuota: 1000 });
    expect((await detect()).predictions).to.have.length(2);
    await server.domain.services.setLimits(service, { rateLimitPerMinute: null, monthlyQuota: null, deepStackMaxPredictions: null });
    expect((await detect()).predictions).to.have.length(uncapped.predictions.length);
  });

  it("Frigate's deepstack detector request: rows for dog, bicycle and truck (as car), boxes relative to the frame", async () => {
    const { stdout } = await run('python3', [path.join(CLIENTS, 'frigate_deepstack_request.py'), detection(), server.apiKey, DOG, String(DOG_SIZE.width), String(DOG_SIZE.height)]);
    const { status, detections } = JSON.parse(stdout) as { status: number; detections: number[][] };
    expect(status).to.equal(200);
    expect(detections.map(([label]) => label).sort((a, b) => a - b)).to.deep.equal([1, 2, 16]);
    const dog = detections.find(([label]) => label === 16)!;
    const [x1, y1, x2, y2] = DOG_PHOTO_OBJECTS.dog;
    expect(dog[2]).to.be.closeTo(y1 / DOG_SIZE.height, 0.02);
    expect(dog[3]).to.be.closeTo(x1 / DOG_SIZE.width, 0.02);
    expect(dog[4]).to.be.closeTo(y2 / DOG_SIZE.height, 0.02);
    expect(dog[5]).to.be.closeTo(x2 / DOG_SIZE.width, 0.02);
  });

  it('keyless calls: off by default, then only from the ranges set on the service page, counted in its usage', async () => {
    const owner = new ConsoleClient(server.url);
    await owner.signUp('nvr@example.com', 'a long passphrase');
    const serviceId = await owner.createService('Blue Iris');
    const page = await owner.get(`/console/services/${serviceId}`);
    expect(page.text).to.match(/id="keyless-state"><span class="badge off">Off<\/span>/);

    const frigateWithoutKey = async (localAddress: string, headers: Record<string, string> = {}) => postFormFrom(localAddress, detection(), dogForm({ api_key: '' }), headers);
    expect((await frigateWithoutKey('127.0.0.1')).status).to.equal(401);

    const bad = await owner.post(`/console/services/${serviceId}/keyless`, { keyless: 'on', ranges: '127.0.0.1/33' });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.contain('is not an address range');
    const turnedOn = await owner.post(`/console/services/${serviceId}/keyless`, { keyless: 'on', ranges: '127.0.0.1/32' });
    expect(turnedOn.status).to.equal(303);
    const shown = await owner.get(turnedOn.location!);
    expect(shown.text).to.match(/id="keyless-state" class="warning"><span class="badge on">On<\/span>[\s\S]*?<code>127\.0\.0\.1\/32<\/code>/);

    const allowed = await frigateWithoutKey('127.0.0.1');
    expect(allowed.status).to.equal(200);
    expectDogPhoto(allowed.body.predictions);
    const notAllowed = await frigateWithoutKey('127.0.0.2');
    expect(notAllowed.status).to.equal(401);
    expect(notAllowed.body.success).to.equal(false);
    // Without DETECTD_TRUST_PROXY, X-Forwarded-For is anyone's to write and is ignored.
    expect((await frigateWithoutKey('127.0.0.2', { 'X-Forwarded-For': '127.0.0.1' })).status).to.equal(401);
    // A key that is sent is always checked, keyless or not.
    expect((await postFormFrom('127.0.0.1', detection(), dogForm({ api_key: 'dtd_wrong' }))).status).to.equal(401);
    // detectd's own API never goes keyless.
    expect((await fetch(`${server.url}/api/v1/object-detection`, { method: 'POST', body: dogForm() })).status).to.equal(401);

    expect(await consoleUsageRequests(owner, serviceId, 1)).to.equal(1);

    const empty = await owner.post(`/console/services/${serviceId}/keyless`, { keyless: 'on', ranges: '' });
    expect(empty.status).to.equal(303);
    expect((await owner.get(`/console/services/${serviceId}`)).text).to.contain('<code>127.0.0.0/8</code>, <code>::1/128</code>');
    expect((await frigateWithoutKey('127.0.0.2')).status).to.equal(200);

    const off = await owner.post(`/console/services/${serviceId}/keyless`, { keyless: 'off', ranges: '' });
    expect(off.status).to.equal(303);
    expect((await frigateWithoutKey('127.0.0.1')).status).to.equal(401);
  });
});

describeEachEngine('DeepStack keyless calls behind a reverse proxy (DETECTD_TRUST_PROXY)', (engine) => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ DETECTD_TRUST_PROXY: 'loopback', DETECTD_SIGNUP: 'open' }, engine);
  });
  after(async () => server?.close());

  it("takes the client's address from X-Forwarded-For when the proxy is trusted", async () => {
    const owner = new ConsoleClient(server.url);
    await owner.signUp('proxied@example.com', 'a long passphrase');
    const serviceId = await owner.createService('cameras');
    expect((await owner.post(`/console/services/${serviceId}/keyless`, { keyless: 'on', ranges: '192.168.7.0/24' })).status).to.equal(303);
    const from = (address: string) => postFormFrom('127.0.0.1', `${server.url}/v1/vision/detection`, dogForm(), { 'X-Forwarded-For': address });
    expect((await from('192.168.7.20')).status).to.equal(200);
    expect((await from('192.168.8.20')).status).to.equal(401);
    // The proxy itself is not in the range: without the header, it is refused.
    expect((await postFormFrom('127.0.0.1', `${server.url}/v1/vision/detection`, dogForm())).status).to.equal(401);
  });
});
