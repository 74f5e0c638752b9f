import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { StreamClient } from '../scripts/lib/stream-client.js';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { TASK_DESCRIPTIONS } from '../src/features/index.js';
import { SHARED_DIR } from './support/paths.js';
import { plateModelsFolder } from './support/plate-models.js';
import { cliAsync, cliAsyncOk, requireBuild } from './support/processes.js';
import { FIRST_ACCOUNT, startTestServer, type TestServer } from './support/test-server.js';

const PHOTOS = path.join(SHARED_DIR, 'eval', 'plates', 'images');
const photo = (file: string) => fs.readFileSync(path.join(PHOTOS, file));
/** Photos of ../shared/eval/plates whose plate the reader reads right (test/license-plate.test.ts). */
const AMY = { file: 'us/wts-lg-000014.jpg', read: 'DG2Z6U' };
const BEN = { file: 'eu/eu1.jpg', read: 'M5XSX' };
const STRANGER = { file: 'br/JQS5683.jpg', read: 'JQS5683' };
const PLATE_TASK = TASK_DESCRIPTIONS.find('license-plate')!;

interface Plate {
  name: string;
  known?: { name: string; plate: string; distance: number };
  track?: { name: string; frames_agreeing: number; frames: number; known?: Plate['known'] };
}
interface KnownList {
  service_id: string;
  distance: number;
  known_plates: { id: string; plate: string; name: string; created: string }[];
}

describe('known plates: a licence-plate service\'s list, matched within its distance on every door (real models, real photos, the real server)', function () {
  this.timeout(300_000);
  let server: TestServer;
  let models: string;
  let apiKey: string;
  const schemas = new SchemaCatalogue(undefined, PLATE_TASK.schemas);

  before(async () => {
    models = plateModelsFolder();
    server = await startTestServer({ DETECTD_MODELS_DIR: models });
    apiKey = await server.createService({ name: 'gate', type: 'license-plate' });
  });
  after(async () => {
    await server?.close();
    fs.rmSync(models, { recursive: true, force: true });
  });

  const knownUrl = () => `${server.url}/api/v1/license-plate/known-plates`;
  const manage = (method: string, body?: unknown, suffix = '', key = apiKey, contentType = 'application/json') =>
    fetch(`${knownUrl()}${suffix}`, { method, headers: { Authorization: `ApiKey ${key}`, ...(body !== undefined && { 'Content-Type': contentType }) }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const read = async (file: string, key = apiKey): Promise<Plate[]> => {
    const answer = await fetch(`${server.url}/api/v1/license-plate`, { method: 'POST', headers: { Authorization: `ApiKey ${key}`, 'Content-Type': 'image/jpeg' }, body: new Uint8Array(photo(file)) });
    expect(answer.status).to.equal(200);
    const body = (await answer.json()) as { detected_plates: Plate[] };
    expect(schemas.check(PLATE_TASK.responseSchema, body)).to.deep.equal({ ok: true });
    return body.detected_plates;
  };
  /** A service of its own with `plates` listed: no test depends on another's list. */
  async function serviceWith(name: string, plates: { plate: string; name: string }[]): Promise<string> {
    const key = await server.createService({ name, type: 'license-plate' });
    const added = await manage('POST', { plates }, '', key);
    expect(added.status, await added.clone().text()).to.equal(201);
    return key;
  }

  it('REST: a registered plate read one character off comes back known with its name; an unregistered one does not; legacy and v1 alike', async () => {
    const key = await serviceWith('rest', [
      { plate: 'DG2-Z6V', name: 'Amy\'s car' },
      { plate: 'M5 XSK', name: 'Ben\'s van' },
    ]);
    const [amy] = await read(AMY.file, key);
    expect(amy.name).to.equal(AMY.read);
    expect(amy.known).to.deep.equal({ name: 'Amy\'s car', plate: 'DG2Z6V', distance: 1 });
    const [stranger] = await read(STRANGER.file, key);
    expect(stranger.name).to.equal(STRANGER.read);
    expect(stranger).to.not.have.property('known');
    const legacy = await fetch(`${server.url}/api/license-plate`, { method: 'POST', headers: { Authorization: `ApiKey ${key}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ raw_data: photo(BEN.file).toString('base64') }) });
    expect(((await legacy.json()) as { detected_plates: Plate[] }).detected_plates[0].known).to.deep.equal({ name: 'Ben\'s van', plate: 'M5XSK', distance: 1 });
    // Another service's list is not this one's.
    expect((await read(AMY.file))[0]).to.not.have.property('known');
  });

  it('the service\'s distance: 0 wants the plate exactly (O and 0 still one), 2 reaches further; each read sees the list as it is now', async () => {
    const key = await serviceWith('distance', [{ plate: 'DG2Z6V', name: 'Amy' }]);
    expect((await manage('PUT', { distance: 0 }, '/settings', key)).status).to.equal(200);
    expect((await read(AMY.file, key))[0]).to.not.have.property('known');
    expect((await manage('POST', { plate: 'dg2z6u', name: 'Amy exactly' }, '', key)).status).to.equal(201);
    expect((await read(AMY.file, key))[0].known).to.deep.equal({ name: 'Amy exactly', plate: 'DG2Z6U', distance: 0 });
    expect((await manage('DELETE', undefined, '/DG2Z6U', key)).status).to.equal(204);
    expect((await manage('PUT', { distance: 2 }, '/settings', key)).status).to.equal(200);
    const listed = (await (await manage('GET', undefined, '', key)).json()) as KnownList;
    expect(listed.distance).to.equal(2);
    expect(listed.known_plates.map((plate) => plate.plate)).to.deep.equal(['DG2Z6V']);
    expect((await manage('PUT', { distance: null }, '/settings', key)).status).to.equal(200);
    expect(((await (await manage('GET', undefined, '', key)).json()) as KnownList).distance).to.equal(1);
  });

  it('CodeProject.AI ALPR: known_name, known_plate and known_distance beside every field its clients read, unchanged', async () => {
    const key = await serviceWith('alpr', [{ plate: 'DG2Z6V', name: 'Amy' }]);
    const alpr = async (file: string) => {
      const form = new FormData();
      form.append('upload', new Blob([new Uint8Array(photo(file))], { type: 'image/jpeg' }), 'car.jpg');
      const answer = await fetch(`${server.url}/v1/image/alpr`, { method: 'POST', headers: { Authorization: `ApiKey ${key}` }, body: form });
      expect(answer.status).to.equal(200);
      const body = (await answer.json()) as { message: string; predictions: Record<string, unknown>[] };
      expect(schemas.check('deepstack-response', body)).to.deep.equal({ ok: true });
      return body;
    };
    const known = await alpr(AMY.file);
    expect(known.message).to.equal(`Found Plate: ${AMY.read}`);
    expect(known.predictions[0]).to.include({ label: `Plate: ${AMY.read}`, plate: AMY.read, known_name: 'Amy', known_plate: 'DG2Z6V', known_distance: 1 });
    for (const field of ['confidence', 'x_min', 'y_min', 'x_max', 'y_max']) expect(known.predictions[0][field], field).to.be.a('number');
    const stranger = await alpr(STRANGER.file);
    expect(stranger.predictions[0]).to.include({ plate: STRANGER.read }).and.not.have.any.keys('known_name', 'known_plate', 'known_distance');
  });

  it('JSON stream: the item of a known plate carries `known`, and so does its track\'s answer', async () => {
    const key = await serviceWith('stream', [{ plate: 'M5XSK', name: 'Ben' }]);
    const client = await StreamClient.open(`${server.url.replace(/^http/, 'ws')}/api/v1/license-plate/stream`, { headers: { Authorization: `ApiKey ${key}` } });
    client.sendJson({ type: 'start' });
    client.sendFrame(photo(BEN.file), 'one');
    const [result] = (await client.waitFor((messages) => messages.some((message) => message.type === 'result'))).filter((message) => message.type === 'result');
    await client.close();
    expect(result.detected_plates.map((plate: Plate) => [plate.name, plate.known])).to.deep.equal([[BEN.read, { name: 'Ben', plate: 'M5XSK', distance: 1 }]]);
    expect(result.detected_plates[0].track).to.deep.equal({ name: BEN.read, frames_agreeing: 1, frames: 1, known: { name: 'Ben', plate: 'M5XSK', distance: 1 } });
  });

  it('REST management: list, add one or many, remove by id or by the plate in any writing; only with the service\'s key', async () => {
    const key = await server.createService({ name: 'manage', type: 'license-plate' });
    const one = await manage('POST', { plate: 'ab-12 cd', name: 'Van' }, '', key);
    expect(one.status).to.equal(201);
    const added = (await one.json()) as KnownList;
    expect(schemas.check('known-plates-response', added)).to.deep.equal({ ok: true });
    expect(added.known_plates).to.have.length(1);
    expect(added.known_plates[0]).to.include({ plate: 'AB12CD', name: 'Van' });
    const many = await manage('POST', { plates: [{ plate: 'XY 999', name: 'Truck' }, { plate: 'D0 1IAB', name: 'Bike' }] }, '', key);
    expect(many.status).to.equal(201);
    const listed = (await (await manage('GET', undefined, '', key)).json()) as KnownList;
    expect(schemas.check('known-plates-response', listed)).to.deep.equal({ ok: true });
    expect(listed.known_plates.map((plate) => `${plate.plate} ${plate.name}`)).to.deep.equal(['AB12CD Van', 'D01IAB Bike', 'XY999 Truck']);
    expect((await manage('DELETE', undefined, `/${added.known_plates[0].id}`, key)).status).to.equal(204);
    expect((await manage('DELETE', undefined, `/${encodeURIComponent('DO1-1AB')}`, key)).status).to.equal(204);
    expect(((await (await manage('GET', undefined, '', key)).json()) as KnownList).known_plates.map((plate) => plate.plate)).to.deep.equal(['XY999']);
    // Another licence-plate service's key sees and removes nothing of this one's.
    expect(((await (await manage('GET')).json()) as KnownList).known_plates.map((plate) => plate.plate)).to.not.include('XY999');
    expect((await manage('DELETE', undefined, '/XY999')).status).to.equal(404);
  });

  it('refuses hostile input precisely, never a 500: bad plates and names, duplicates, bad distances, wrong body types, no key, another type\'s key', async () => {
    const key = await serviceWith('hostile', [{ plate: 'AB123', name: 'Listed' }]);
    const objectKey = await server.createService({ name: 'objects', type: 'object-detection' });
    const cases: [Response, number, string][] = [
      [await manage('POST', { plate: '', name: 'x' }, '', key), 400, 'invalid_request'],
      [await manage('POST', { plate: '--- ...', name: 'x' }, '', key), 400, 'invalid_request'],
      [await manage('POST', { plate: 'AB<script>', name: 'x' }, '', key), 400, 'invalid_request'],
      [await manage('POST', { plate: 'A'.repeat(17), name: 'x' }, '', key), 400, 'invalid_request'],
      [await manage('POST', { plate: 'AB124', name: 'bell\u0007' }, '', key), 400, 'invalid_request'],
      [await manage('POST', { plate: 'AB124', name: '   ' }, '', key), 400, 'invalid_request'],
      [await manage('POST', { plate: 'AB124' }, '', key), 400, 'invalid_request'],
      [await manage('POST', { plate: 'AB124', name: 'x', extra: 1 }, '', key), 400, 'invalid_request'],
      [await manage('POST', { plates: [] }, '', key), 400, 'invalid_request'],
      [await manage('POST', [{ plate: 'AB124', name: 'x' }], '', key), 400, 'invalid_request'],
      [await manage('POST', '{"plate": ', '', key), 400, 'invalid_json'],
      [await manage('POST', 'plate=AB124', '', key, 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type'],
      [await manage('POST', { plate: 'a-b 123', name: 'again' }, '', key), 409, 'known_plate_exists'],
      [await manage('POST', { plates: [{ plate: 'CD1', name: 'a' }, { plate: 'CDI', name: 'b' }] }, '', key), 409, 'known_plate_exists'],
      [await manage('PUT', { distance: 4 }, '/settings', key), 400, 'invalid_request'],
      [await manage('PUT', { distance: 1.5 }, '/settings', key), 400, 'invalid_request'],
      [await manage('PUT', { distance: '1' }, '/settings', key), 400, 'invalid_request'],
      [await manage('PUT', {}, '/settings', key), 400, 'invalid_request'],
      [await manage('DELETE', undefined, '/ZZ999', key), 404, 'known_plate_not_found'],
      [await manage('DELETE', undefined, '/%zz', key), 400, 'invalid_path'],
      [await manage('PATCH', { plate: 'AB124', name: 'x' }, '', key), 405, 'method_not_allowed'],
      [await manage('GET', undefined, '/settings', key), 405, 'method_not_allowed'],
      [await fetch(knownUrl()), 401, 'unauthorized'],
      [await manage('GET', undefined, '', 'wrong'), 401, 'unauthorized'],
      [await manage('GET', undefined, '', objectKey), 403, 'forbidden'],
      [await manage('POST', { plate: 'AB124', name: 'x' }, '', objectKey), 403, 'forbidden'],
    ];
    for (const [answer, status, code] of cases) {
      const body = (await answer.json()) as { error: { code: string; message: string } };
      expect([answer.status, body.error.code], body.error.message).to.deep.equal([status, code]);
    }
    // Nothing of it was added: the list all or none.
    const listed = (await (await manage('GET', undefined, '', key)).json()) as KnownList;
    expect(listed.known_plates.map((plate) => plate.plate)).to.deep.equal(['AB123']);
    expect(listed.distance).to.equal(1);
  });

  it('the CLI beside the server lists, adds, removes and sets the distance; the next read sees it at once; bad input is refused', async function () {
    requireBuild();
    const { DETECTD_MODEL: _model, DETECTD_MODELS_DIR: _folder, ...shell } = process.env;
    const beside = { ...shell, DETECTD_DATA_DIR: server.dataDir };
    const key = await server.createService({ email: FIRST_ACCOUNT.email, name: 'cli plates 2', type: 'license-plate' });
    const cli = (command: string) => cliAsyncOk(['service', command, 'cli plates 2', '--account', FIRST_ACCOUNT.email, '--json'], beside);
    const added = await cliAsync(['service', 'known-plate-add', 'cli plates 2', 'DG2 Z6V', 'Amy', '--account', FIRST_ACCOUNT.email, '--json'], beside);
    expect(added.status, added.stderr).to.equal(0);
    expect(JSON.parse(added.stdout)).to.include({ plate: 'DG2Z6V', name: 'Amy' });
    expect((await read(AMY.file, key))[0].known).to.deep.equal({ name: 'Amy', plate: 'DG2Z6V', distance: 1 });
    const listed = await cli('known-plates');
    expect(JSON.parse(listed.stdout)).to.deep.include({ distance: 1 });
    expect(JSON.parse(listed.stdout).known_plates.map((plate: { plate: string }) => plate.plate)).to.deep.equal(['DG2Z6V']);
    const words = await cliAsyncOk(['service', 'known-plates', 'cli plates 2', '--account', FIRST_ACCOUNT.email], beside);
    expect(words.stdout).to.contain('up to 1 character off').and.contain('DG2Z6V').and.contain('Amy');
    const exact = await cliAsyncOk(['service', 'known-plate-distance', 'cli plates 2', '0', '--account', FIRST_ACCOUNT.email, '--json'], beside);
    expect(JSON.parse(exact.stdout)).to.include({ distance: 0, default: false });
    expect((await read(AMY.file, key))[0]).to.not.have.property('known');
    const refusals: [string[], number, string][] = [
      [['known-plate-distance', 'cli plates 2', '9'], 1, 'invalid_distance'],
      [['known-plate-distance', 'cli plates 2', 'one'], 2, 'usage'],
      [['known-plate-add', 'cli plates 2', 'DG2-Z6V', 'Again'], 1, 'plate_exists'],
      [['known-plate-add', 'cli plates 2', '!!', 'Bad'], 1, 'invalid_plate'],
      [['known-plate-remove', 'cli plates 2', 'NOPE1'], 1, 'known_plate_not_found'],
      [['known-plates', 'service 1'], 1, 'not_a_plate_service'],
    ];
    for (const [args, status, code] of refusals) {
      const refused = await cliAsync(['service', ...args, '--account', FIRST_ACCOUNT.email, '--json'], beside);
      expect([refused.status, JSON.parse(refused.stderr).error.code], args.join(' ')).to.deep.equal([status, code]);
    }
    const removed = await cliAsync(['service', 'known-plate-remove', 'cli plates 2', 'dg2z6v', '--account', FIRST_ACCOUNT.email, '--json'], beside);
    expect(removed.status, removed.stderr).to.equal(0);
    expect(JSON.parse((await cli('known-plates')).stdout).known_plates).to.deep.equal([]);
  });

  it('goes with its service: deleting the service deletes its known plates', async () => {
    const key = await serviceWith('deleted', [{ plate: 'GONE1', name: 'x' }]);
    const service = (await server.domain.keys.authenticate(key))!;
    const count = async () => (await server.db.withTables<{ known_plates: { id: string; service_id: string } }>().selectFrom('known_plates').select('id').where('service_id', '=', service.id).execute()).length;
    expect(await count()).to.equal(1);
    await server.domain.services.delete(service);
    expect(await count()).to.equal(0);
  });
});
