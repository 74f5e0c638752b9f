import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { TASK_DESCRIPTIONS } from '../src/features/index.js';
import { StreamClient } from '../scripts/lib/stream-client.js';
import { PHOTOS_DIR, SHARED_DIR } from './support/paths.js';
import { describeEachEngine } from './support/engines.js';
import { startTestServer, type TestServer } from './support/test-server.js';

const PKLOT = path.join(SHARED_DIR, 'eval', 'states', 'pklot-pucpr');
const STATES_TASK = TASK_DESCRIPTIONS.find('region-states')!;

interface Labelled {
  file: string;
  state: string;
  region_id: string;
  polygon: [number, number][];
}
interface StateFinding {
  name: string;
  state: string;
  confidence: number;
  bounding_box: { left: number; top: number; right: number; bottom: number };
}

const index = JSON.parse(fs.readFileSync(path.join(PKLOT, 'index.json'), 'utf8')) as Labelled[];
const frame = (file: string) => fs.readFileSync(path.join(PKLOT, file));
const month = (entry: Labelled) => path.basename(entry.file).slice(0, 7);
/** Eight spaces with both states among their September frames. */
const SPACES = [...new Set(index.map((entry) => entry.region_id))]
  .filter((space) => new Set(index.filter((entry) => entry.region_id === space && month(entry) === '2012-09').map((entry) => entry.state)).size === 2)
  .slice(0, 8);
const labelsOf = (file: string) => new Map(index.filter((entry) => entry.file === file && SPACES.includes(entry.region_id)).map((entry) => [entry.region_id, entry.state]));
const framesOf = (wanted: string) => [...new Set(index.filter((entry) => month(entry) === wanted).map((entry) => entry.file))].sort();

describeEachEngine('states: regions of a camera taught by example through REST, judged through REST and DeepStack\'s custom route (real server, embedded MobileNetV2, PKLot frames)', (engine, suite) => {
  suite.timeout(600_000);
  let server: TestServer;
  let apiKey: string;
  const schemas = new SchemaCatalogue(undefined, STATES_TASK.schemas);
  const call = (route: string, method: string, body?: unknown, key = apiKey) =>
    fetch(`${server.url}${route}`, { method, headers: { Authorization: `ApiKey ${key}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const judged = async (file: string, source = 'pucpr'): Promise<StateFinding[]> => {
    const answer = await call('/api/v1/region-states', 'POST', { raw_data: frame(file).toString('base64'), source_id: source });
    expect(answer.status).to.equal(200);
    const body = (await answer.json()) as { detected_states: StateFinding[] };
    expect(schemas.check(STATES_TASK.responseSchema, body)).to.deep.equal({ ok: true });
    return body.detected_states;
  };

  before(async () => {
    server = await startTestServer({}, engine);
    apiKey = await server.createService({ name: 'parking', type: 'region-states' });
    const regions = SPACES.map((space) => ({ name: space, polygon: index.find((entry) => entry.region_id === space)!.polygon }));
    expect((await call('/api/v1/region-states/regions', 'POST', { source_id: 'pucpr', regions })).status).to.equal(201);
    // Every September frame teaches each space its state then: examples spread over the month.
    for (const file of framesOf('2012-09')) {
      const labels = labelsOf(file);
      if (labels.size === 0) continue;
      const taught = await call('/api/v1/region-states/examples', 'POST', { raw_data: frame(file).toString('base64'), source_id: 'pucpr', states: Object.fromEntries(labels) });
      expect(taught.status, await taught.clone().text()).to.equal(201);
    }
  });
  after(async () => {
    await server?.close();
  });

  it('judges November\'s frames, never taught from, through POST /api/v1/region-states: each region right or unsure, almost all right', async () => {
    let right = 0;
    let wrong = 0;
    let all = 0;
    for (const file of framesOf('2012-11')) {
      const labels = labelsOf(file);
      for (const finding of await judged(file)) {
        if (!labels.has(finding.name)) continue;
        all++;
        if (finding.state === labels.get(finding.name)) right++;
        else if (finding.state !== 'unsure') wrong++;
      }
    }
    expect(all).to.be.greaterThan(100);
    // Measured 99 % right on all 100 spaces (docs/states.md); a loose floor for these eight.
    expect(right / all).to.be.at.least(0.95);
    expect(wrong / all).to.be.at.most(0.02);
  });

  it('answers DeepStack\'s custom route named by the camera: one prediction per region, label its state, the region\'s box', async () => {
    const file = framesOf('2012-10')[0];
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(frame(file))], { type: 'image/jpeg' }), 'frame.jpg');
    form.append('api_key', apiKey);
    const answer = await fetch(`${server.url}/v1/vision/custom/pucpr`, { method: 'POST', body: form });
    expect(answer.status).to.equal(200);
    const body = (await answer.json()) as { success: boolean; predictions: { label: string; confidence: number; x_min: number; y_min: number; x_max: number; y_max: number }[] };
    expect(body.success).to.equal(true);
    expect(body.predictions).to.have.length(SPACES.length);
    const viaRest = await judged(file);
    for (const prediction of body.predictions) {
      const region = viaRest.find((finding) => finding.bounding_box.left === prediction.x_min && finding.bounding_box.top === prediction.y_min)!;
      expect(prediction.label).to.equal(region.state);
      expect([prediction.x_max, prediction.y_max]).to.deep.equal([region.bounding_box.right, region.bounding_box.bottom]);
    }
    // A loaded model's name is still that model's: the object service answers it.
    const objects = new FormData();
    objects.append('image', new Blob([new Uint8Array(fs.readFileSync(path.join(PHOTOS_DIR, 'dog.jpg')))], { type: 'image/jpeg' }), 'dog.jpg');
    const { models } = (await (await fetch(`${server.url}/v1/vision/custom/list`, { method: 'POST' })).json()) as { models: string[] };
    const detected = await fetch(`${server.url}/v1/vision/custom/${encodeURIComponent(models[0])}`, { method: 'POST', headers: { Authorization: `ApiKey ${server.apiKey}` }, body: objects });
    expect(detected.status).to.equal(200);
    expect(((await detected.json()) as { predictions: { label: string }[] }).predictions.map((prediction) => prediction.label)).to.include('dog');
  });

  it('lists the regions with their examples per state, and the examples with thumbnails; an example removed is gone', async () => {
    const regions = (await (await call('/api/v1/region-states/regions?source_id=pucpr', 'GET')).json()) as { regions: { name: string; examples: Record<string, number> }[] };
    expect(regions.regions.map((region) => region.name).sort()).to.deep.equal([...SPACES].sort());
    for (const region of regions.regions) expect(Object.keys(region.examples).sort()).to.deep.equal(['empty', 'occupied']);
    const listed = (await (await call(`/api/v1/region-states/examples?source_id=pucpr&region=${SPACES[0]}`, 'GET')).json()) as { examples: { id: string; thumbnail: string }[] };
    expect(listed.examples.length).to.be.greaterThan(10);
    expect(Buffer.from(listed.examples[0].thumbnail, 'base64').subarray(0, 3)).to.deep.equal(Buffer.from([0xff, 0xd8, 0xff]));
    expect((await call(`/api/v1/region-states/examples/${listed.examples[0].id}`, 'DELETE')).status).to.equal(204);
    expect((await call(`/api/v1/region-states/examples/${listed.examples[0].id}`, 'DELETE')).status).to.equal(404);
  });

  it('answers unsure for a region taught one state only, and nothing for a source with no regions', async () => {
    const key = await server.createService({ name: 'gate', type: 'region-states' });
    const file = framesOf('2012-09')[0];
    const space = SPACES[0];
    const polygon = index.find((entry) => entry.region_id === space)!.polygon;
    expect((await call('/api/v1/region-states/regions', 'POST', { source_id: 'gate', regions: [{ name: 'gate', polygon }] }, key)).status).to.equal(201);
    expect((await call('/api/v1/region-states/examples', 'POST', { raw_data: frame(file).toString('base64'), source_id: 'gate', states: { gate: 'open' } }, key)).status).to.equal(201);
    const answer = (await (await call('/api/v1/region-states', 'POST', { raw_data: frame(file).toString('base64'), source_id: 'gate' }, key)).json()) as { detected_states: StateFinding[] };
    expect(answer.detected_states.map((finding) => [finding.name, finding.state, finding.confidence])).to.deep.equal([['gate', 'unsure', 0]]);
    const none = (await (await call('/api/v1/region-states', 'POST', { raw_data: frame(file).toString('base64'), source_id: 'elsewhere' }, key)).json()) as { detected_states: StateFinding[] };
    expect(none.detected_states).to.deep.equal([]);
  });

  it('on the JSON stream, each region carries its state and the state its frames decided by vote (its track)', async () => {
    const key = await server.createService({ name: 'stream', type: 'region-states' });
    const [first, second] = framesOf('2012-09');
    const space = SPACES[0];
    const polygon = index.find((entry) => entry.region_id === space)!.polygon;
    expect((await call('/api/v1/region-states/regions', 'POST', { regions: [{ name: space, polygon }] }, key)).status).to.equal(201);
    for (const file of [first, second, ...framesOf('2012-09').filter((each) => labelsOf(each).get(space) !== labelsOf(first).get(space)).slice(0, 2)]) {
      expect((await call('/api/v1/region-states/examples', 'POST', { raw_data: frame(file).toString('base64'), states: { [space]: labelsOf(file).get(space) } }, key)).status).to.equal(201);
    }
    const client = await StreamClient.start(server.url, key, {}, 'region-states');
    for (const frameId of [1, 2, 3]) {
      client.sendFrame(frame(first), frameId);
      await client.waitFor((received) => received.some((message) => message.frame_id === frameId));
    }
    await client.close();
    const last = client.results().at(-1)!;
    expect(last.detected_states).to.have.length(1);
    expect(last.detected_states[0]).to.deep.include({ name: space, state: labelsOf(first).get(space) });
    expect(last.detected_states[0].track).to.deep.equal({ name: labelsOf(first).get(space), frames_agreeing: 3, frames: 3 });
  });

  it('refuses hostile regions and examples with a precise 4xx, never a 500', async () => {
    const key = await server.createService({ name: 'hostile', type: 'region-states' });
    const raw = frame(framesOf('2012-09')[0]).toString('base64');
    const refusals: [string, unknown, number, string][] = [
      ['/api/v1/region-states/regions', { regions: [{ name: 'a', polygon: [[0, 0], [10, 10]] }] }, 400, 'invalid_request'],
      ['/api/v1/region-states/regions', { regions: [{ name: 'line', polygon: [[0, 0], [10, 10], [20, 20]] }] }, 400, 'invalid_request'],
      ['/api/v1/region-states/regions', { regions: [{ name: 'inverted', bounding_box: { left: 50, top: 10, right: 20, bottom: 40 } }] }, 400, 'invalid_request'],
      ['/api/v1/region-states/regions', { regions: [{ name: 'both', bounding_box: { left: 0, top: 0, right: 20, bottom: 20 }, polygon: [[0, 0], [10, 0], [0, 10]] }] }, 400, 'invalid_request'],
      ['/api/v1/region-states/regions', { regions: [{ name: 'far', polygon: [[0, 0], [1e9, 0], [0, 10]] }] }, 400, 'invalid_request'],
      ['/api/v1/region-states/regions', { regions: [{ name: 'nan', bounding_box: { left: 0, top: 0, right: 'x', bottom: 20 } }] }, 400, 'invalid_request'],
      ['/api/v1/region-states/regions', { regions: Array.from({ length: 201 }, (_, n) => ({ name: `r${n}`, bounding_box: { left: 0, top: 0, right: 20, bottom: 20 } })) }, 400, 'invalid_request'],
      ['/api/v1/region-states/regions', { regions: [{ name: 'twice', bounding_box: { left: 0, top: 0, right: 20, bottom: 20 } }, { name: 'twice', bounding_box: { left: 0, top: 0, right: 20, bottom: 20 } }] }, 400, 'invalid_request'],
      ['/api/v1/region-states/examples', { raw_data: raw, states: {} }, 400, 'invalid_request'],
      ['/api/v1/region-states/examples', { raw_data: raw, states: { nowhere: 'open' } }, 404, 'not_found'],
      ['/api/v1/region-states/examples', { raw_data: 'not base64!', states: { nowhere: 'open' } }, 404, 'not_found'],
    ];
    for (const [route, body, status, code] of refusals) {
      const answer = await call(route, 'POST', body, key);
      const text = await answer.text();
      expect(answer.status, `${route} ${text}`).to.equal(status);
      expect((JSON.parse(text) as { error: { code: string } }).error.code, text).to.equal(code);
    }
    // 200 regions fit; one more is refused, naming the limit.
    const many = Array.from({ length: 200 }, (_, n) => ({ name: `r${n}`, bounding_box: { left: n, top: 0, right: n + 20, bottom: 20 } }));
    expect((await call('/api/v1/region-states/regions', 'POST', { regions: many }, key)).status).to.equal(201);
    const more = await call('/api/v1/region-states/regions', 'POST', { regions: [{ name: 'one-more', bounding_box: { left: 0, top: 0, right: 20, bottom: 20 } }] }, key);
    expect(more.status).to.equal(400);
    expect(await more.text()).to.contain('at most 200 regions');
    const state = await call('/api/v1/region-states/examples', 'POST', { raw_data: raw, states: { r0: 'bad\u0007state' } }, key);
    expect(state.status).to.equal(400);
    expect((await call('/api/v1/region-states/regions/nowhere', 'DELETE', undefined, key)).status).to.equal(404);
    const image = await call('/api/v1/region-states/examples', 'POST', { raw_data: Buffer.from('not an image').toString('base64'), states: { r0: 'open' } }, key);
    expect(image.status).to.equal(400);
    expect(((await image.json()) as { error: { code: string } }).error.code).to.equal('invalid_image');
  });
});
