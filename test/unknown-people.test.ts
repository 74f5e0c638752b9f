import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { sql } from '../src/store/kysely.js';
import { SchemaCatalogue } from '../src/core/schema-catalogue.js';
import { StreamClient } from '../scripts/lib/stream-client.js';
import { cropPath, FACES_DIR } from './support/faces.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { cliAsync, cliAsyncOk, requireBuild } from './support/processes.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { faceTables } from '../src/features/faces/gallery/face-tables.js';

const FACE_TASK = 'face-detection';
const schemas = new SchemaCatalogue();

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

/**
 * Unknown people (docs/faces.md "Unknown people") through the real server on a real port, with the
 * real face models and the shared photos of ../shared/eval/faces: the switch, keeping from every
 * door, grouping, name, merge, forget (in the database and a backup), retention and the cap, and
 * hostile input on every route.
 */
describe('unknown people: faces no one is named for, kept when the owner turns it on, grouped, named, merged and forgotten', function () {
  this.timeout(300_000);
  let server: TestServer;
  let key: string;
  let serviceId: string;

  const api = async (method: string, route: string, apiKey: string, body?: unknown): Promise<Answer> => {
    const response = await fetch(`${server.url}/api/v1/${FACE_TASK}/unknown-people${route}`, {
      method,
      headers: { Authorization: `ApiKey ${apiKey}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const type = response.headers.get('content-type') ?? '';
    return { status: response.status, headers: response.headers, body: type.startsWith('application/json') ? await response.json() : Buffer.from(await response.arrayBuffer()) };
  };
  const valid = (schema: string, body: unknown) => expect(schemas.check(schema, body), JSON.stringify(body)).to.deep.equal({ ok: true });

  /** One photo through `POST /api/v1/face-detection` (JSON, base64) with a frame_id and source_id. */
  const detect = async (apiKey: string, file: string, frameId: string): Promise<any> => {
    const response = await fetch(`${server.url}/api/v1/${FACE_TASK}`, {
      method: 'POST',
      headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ raw_data: fs.readFileSync(file).toString('base64'), frame_id: frameId, source_id: 'porch' }),
    });
    expect(response.status).to.equal(200);
    return response.json();
  };
  const list = async (apiKey: string) => {
    const answer = await api('GET', '', apiKey);
    expect(answer.status).to.equal(200);
    valid('unknown-people-response', answer.body);
    return answer.body.unknown_people as { id: string; face_count: number; best_faces: string[] }[];
  };
  const faceService = async (name: string, remember: boolean) => {
    const apiKey = await server.createService({ name, type: FACE_TASK });
    if (remember) expect((await api('PUT', '/settings', apiKey, { remember: true })).status).to.equal(200);
    return apiKey;
  };
  const keptRows = async (id: string) => faceTables(server.db).selectFrom('unknown_faces').selectAll().where('service_id', '=', id).execute();

  before(async () => {
    server = await startTestServer({ DETECTD_MODEL: DEFAULT_TEST_MODEL });
    key = await server.createService({ name: 'porch', type: FACE_TASK });
    serviceId = (await server.domain.keys.authenticate(key))!.id;
  });
  after(async () => server?.close());

  it('keeps nothing while the switch is off, as it is for every service until its owner turns it on', async () => {
    const settings = await api('GET', '/settings', key);
    expect(settings.status).to.equal(200);
    valid('unknown-faces-settings', settings.body);
    expect(settings.body).to.deep.equal({ remember: false, retention_days: 30, max_faces: 1000 });
    const answer = await detect(key, cropPath('amy', 1), 'off-1');
    expect(answer.detected_faces).to.have.length(1);
    expect(answer.detected_faces[0].name).to.equal('face');
    expect(await list(key)).to.deep.equal([]);
    expect(await keptRows(serviceId)).to.deep.equal([]);
  });

  it('with it on, keeps faces from REST, DeepStack recognize and a JSON stream, with their frame_id and source_id; one person\'s photos grouped, two people apart', async () => {
    const apiKey = await faceService('doors', true);
    const id = (await server.domain.keys.authenticate(apiKey))!.id;
    for (const index of [1, 2, 3]) await detect(apiKey, cropPath('penny', index), `penny-${index}`);
    await detect(apiKey, cropPath('raj', 1), 'raj-1');
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(fs.readFileSync(cropPath('raj', 2)))]), 'raj2.png');
    form.append('api_key', apiKey);
    const recognized = await fetch(`${server.url}/v1/vision/face/recognize`, { method: 'POST', body: form });
    expect(recognized.status).to.equal(200);
    expect((await recognized.json()).predictions.map((face: { userid: string }) => face.userid)).to.deep.equal(['unknown']);
    const stream = await StreamClient.start(server.url, apiKey, {}, FACE_TASK);
    stream.sendFrame(fs.readFileSync(cropPath('raj', 3)), 'cam-7');
    await stream.waitFor((messages) => messages.some((message) => message.type === 'result'));
    stream.socket.close();

    const rows = await keptRows(id);
    expect(rows).to.have.length(6);
    expect(rows.map((row) => row.frame_id)).to.have.members(['cam-7', 'penny-1', 'penny-2', 'penny-3', 'raj-1', null]);
    // Encrypted: no descriptor or JPEG in the clear.
    for (const row of rows) expect(row.thumbnail_ciphertext).not.to.match(/^\/9j\//);
    const people = await list(apiKey);
    const groupOf = new Map(rows.map((row) => [row.frame_id, row.group_id]));
    expect(groupOf.get('penny-1')).to.equal(groupOf.get('penny-2')).and.to.equal(groupOf.get('penny-3'));
    expect(groupOf.get('raj-1')).to.equal(groupOf.get('cam-7'));
    expect(groupOf.get('raj-1')).not.to.equal(groupOf.get('penny-1'));
    expect(people.map((person) => person.face_count).sort()).to.deep.equal([3, 3]);

    const penny = await api('GET', `/${groupOf.get('penny-1')}`, apiKey);
    expect(penny.status).to.equal(200);
    valid('unknown-person-response', penny.body);
    expect(penny.body.faces.map((face: { frame_id: string; source_id: string }) => [face.frame_id, face.source_id])).to.have.deep.members([
      ['penny-1', 'porch'],
      ['penny-2', 'porch'],
      ['penny-3', 'porch'],
    ]);
    const thumbnail = await api('GET', `/${penny.body.id}/faces/${penny.body.best_faces[0]}/thumbnail`, apiKey);
    expect(thumbnail.status).to.equal(200);
    expect(thumbnail.headers.get('content-type')).to.equal('image/jpeg');
    expect(thumbnail.headers.get('cache-control')).to.equal('no-store');
    expect([...thumbnail.body.subarray(0, 3)]).to.deep.equal([0xff, 0xd8, 0xff]);
  });

  it('names a group: its best faces are registered, the group is gone, and the person is then recognized', async () => {
    const apiKey = await faceService('naming', true);
    for (const index of [1, 2]) await detect(apiKey, cropPath('sheldon', index), `sheldon-${index}`);
    const [sheldon] = await list(apiKey);
    expect(sheldon.face_count).to.equal(2);
    const named = await api('POST', `/${sheldon.id}/name`, apiKey, { userid: 'Sheldon' });
    expect(named.status).to.equal(200);
    valid('unknown-person-named-response', named.body);
    expect(named.body).to.deep.include({ userid: 'Sheldon', registered_faces: 2, weak_faces: 0, samples: 2, forgotten: sheldon.id });
    expect(await list(apiKey)).to.deep.equal([]);
    const again = await detect(apiKey, cropPath('sheldon', 4), 'sheldon-4');
    expect(again.detected_faces.map((face: { name: string }) => face.name)).to.deep.equal(['Sheldon']);
    // Named: not kept again.
    expect(await list(apiKey)).to.deep.equal([]);
    // Someone else is still kept, now as `unknown`.
    const stranger = await detect(apiKey, cropPath('howard', 1), 'howard-1');
    expect(stranger.detected_faces.map((face: { name: string }) => face.name)).to.deep.equal(['unknown']);
    expect((await list(apiKey)).map((person) => person.face_count)).to.deep.equal([1]);
  });

  it('merges two groups into one, and forgets a group: its rows gone from the database and from a backup taken afterwards', async () => {
    requireBuild();
    const apiKey = await faceService('forget', true);
    const id = (await server.domain.keys.authenticate(apiKey))!.id;
    await detect(apiKey, cropPath('leonard', 1), 'leonard-1');
    await detect(apiKey, cropPath('bernadette', 1), 'bernadette-1');
    const [first, second] = await list(apiKey);
    const merged = await api('POST', `/${first.id}/merge`, apiKey, { into: second.id });
    expect(merged.status).to.equal(200);
    expect(merged.body).to.deep.include({ id: second.id, face_count: 2 });
    expect((await list(apiKey)).map((person) => person.id)).to.deep.equal([second.id]);

    const ciphertexts = (await keptRows(id)).flatMap((row) => [row.descriptor_ciphertext, row.thumbnail_ciphertext]);
    expect(ciphertexts).to.have.length(4);
    const forgotten = await api('DELETE', `/${second.id}`, apiKey);
    expect(forgotten.status).to.equal(200);
    valid('unknown-person-forgotten-response', forgotten.body);
    expect(await keptRows(id)).to.deep.equal([]);
    expect(await faceTables(server.db).selectFrom('unknown_groups').selectAll().where('service_id', '=', id).execute()).to.deep.equal([]);
    expect((await api('GET', `/${second.id}`, apiKey)).status).to.equal(404);

    const sqliteBytes = fs.readFileSync(path.join(server.dataDir, 'detectd.sqlite'));
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-unknown-backup-'));
    try {
      const backup = await cliAsync(['backup', path.join(folder, 'backup.tar.gz')], { ...process.env, DETECTD_DATA_DIR: server.dataDir });
      expect(backup.status, backup.stderr).to.equal(0);
      const { execFileSync } = await import('node:child_process');
      execFileSync('tar', ['-xzf', path.join(folder, 'backup.tar.gz'), '-C', folder]);
      const backedUp = fs.readFileSync(path.join(folder, 'detectd.sqlite'));
      for (const ciphertext of ciphertexts) {
        // The ciphertext is base64 text in a text column: its first 40 characters would be in the file as they are.
        const needle = Buffer.from(ciphertext.slice(0, 40));
        expect(backedUp.includes(needle), 'in the backup').to.equal(false);
        expect(sqliteBytes.includes(needle), 'in the database file').to.equal(false);
      }
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('forgets faces past the retention and beyond the cap, oldest first', async () => {
    const apiKey = await faceService('cap', true);
    const id = (await server.domain.keys.authenticate(apiKey))!.id;
    for (const [index, person] of ['amy', 'howard', 'stuart'].entries()) await detect(apiKey, cropPath(person, 2), `${person}-${index}`);
    const capped = await api('PUT', '/settings', apiKey, { max_faces: 2 });
    expect(capped.body).to.deep.equal({ remember: true, retention_days: 30, max_faces: 2 });
    expect((await keptRows(id)).map((row) => row.frame_id).sort()).to.deep.equal(['howard-1', 'stuart-2']);
    await detect(apiKey, cropPath('amy', 3), 'amy-3');
    expect((await keptRows(id)).map((row) => row.frame_id).sort()).to.deep.equal(['amy-3', 'stuart-2']);
    // Seen 31 days ago: past the 30 days kept.
    await faceTables(server.db).updateTable('unknown_faces').set({ seen_at: new Date(Date.now() - 31 * 86_400_000).toISOString() }).where('frame_id', '=', 'stuart-2').execute();
    await api('PUT', '/settings', apiKey, { retention_days: 30 });
    expect((await keptRows(id)).map((row) => row.frame_id)).to.deep.equal(['amy-3']);
    expect(await list(apiKey)).to.have.length(1);
    // Off: nothing more is kept; what was kept stays until forgotten.
    await api('PUT', '/settings', apiKey, { remember: false });
    await detect(apiKey, cropPath('raj', 4), 'raj-4');
    expect((await keptRows(id)).map((row) => row.frame_id)).to.deep.equal(['amy-3']);
  });

  it('the command line turns it on, lists the unknown people and forgets them all, against the server\'s database', async () => {
    requireBuild();
    const apiKey = await server.createService({ name: 'command line', type: FACE_TASK });
    const id = (await server.domain.keys.authenticate(apiKey))!.id;
    const env = { ...process.env, DETECTD_DATA_DIR: server.dataDir };
    const on = await cliAsync(['service', 'remember-unknown', id, '--on', '--max-faces', '50', '--json'], env);
    expect(on.status, on.stderr).to.equal(0);
    expect(JSON.parse(on.stdout)).to.deep.equal({ service: id, remember: true, retention_days: 30, max_faces: 50 });
    await detect(apiKey, cropPath('stuart', 1), 'stuart-1');
    const listed = await cliAsyncOk(['service', 'unknown', 'list', id, '--json'], env);
    const [person] = JSON.parse(listed.stdout).unknown_people;
    expect(person).to.include({ face_count: 1 });
    const forgotten = await cliAsyncOk(['service', 'unknown', 'forget', id, '--all', '--json'], env);
    expect(JSON.parse(forgotten.stdout)).to.deep.equal({ service: id, forgotten_people: 1 });
    expect(await keptRows(id)).to.deep.equal([]);
  });

  it('answers the call when keeping fails (a database error): logged without the face, nothing half kept', async () => {
    const apiKey = await faceService('failing store', true);
    const id = (await server.domain.keys.authenticate(apiKey))!.id;
    await sql`ALTER TABLE unknown_faces RENAME TO unknown_faces_away`.execute(server.db);
    try {
      const answer = await detect(apiKey, cropPath('bernadette', 2), 'bernadette-2');
      expect(answer.detected_faces.map((face: { name: string }) => face.name)).to.deep.equal(['face']);
    } finally {
      await sql`ALTER TABLE unknown_faces_away RENAME TO unknown_faces`.execute(server.db);
    }
    const logged = server.logText().split('\n').filter((line) => line.includes('unknown faces could not be kept'));
    expect(logged).to.have.length(1);
    expect(logged[0]).not.to.match(/descriptor_ciphertext|thumbnail_ciphertext|\/9j\//);
    // The transaction was rolled back: no group without its face.
    expect(await faceTables(server.db).selectFrom('unknown_groups').selectAll().where('service_id', '=', id).execute()).to.deep.equal([]);
  });

  it('answers hostile input on every route with a precise 4xx: bad ids and bodies, another service\'s group, a key of another type, a wrong method', async () => {
    const apiKey = await faceService('hostile', true);
    await detect(apiKey, path.join(FACES_DIR, 'amy', 'amy4.png'), 'amy-4');
    const [own] = await list(apiKey);
    const other = await faceService('other', false);
    const objectKey = await server.createService({ name: 'objects' });
    const missing = '00000000-0000-4000-8000-000000000000';
    const cases: [string, string, string, unknown, number, string][] = [
      ['GET', '/not-a-uuid', apiKey, undefined, 400, 'invalid_request'],
      ['GET', `/${missing}`, apiKey, undefined, 404, 'unknown_person'],
      ['GET', `/${own.id}`, other, undefined, 404, 'unknown_person'],
      ['DELETE', `/${own.id}`, other, undefined, 404, 'unknown_person'],
      ['GET', `/${own.id}/faces/${missing}/thumbnail`, apiKey, undefined, 404, 'unknown_person'],
      ['GET', `/${own.id}/faces/x/thumbnail`, apiKey, undefined, 400, 'invalid_request'],
      ['POST', `/${own.id}/name`, apiKey, {}, 400, 'invalid_request'],
      ['POST', `/${own.id}/name`, apiKey, { userid: '' }, 400, 'invalid_request'],
      ['POST', `/${own.id}/name`, apiKey, { userid: 'a\u0007b' }, 400, 'invalid_request'],
      ['POST', `/${own.id}/name`, apiKey, { userid: 'x'.repeat(201) }, 400, 'invalid_request'],
      // `unknown` is what a face named no one is called: no person may be, in any case.
      ['POST', `/${own.id}/name`, apiKey, { userid: 'unknown' }, 400, 'invalid_request'],
      ['POST', `/${own.id}/name`, apiKey, { userid: 'Unknown' }, 400, 'invalid_request'],
      ['POST', `/${own.id}/name`, apiKey, { userid: 'amy', faces: 0 }, 400, 'invalid_request'],
      ['POST', `/${own.id}/name`, apiKey, { userid: 'amy', extra: 1 }, 400, 'invalid_request'],
      ['POST', `/${own.id}/name`, apiKey, '{"userid":', 400, 'invalid_json'],
      ['POST', `/${own.id}/name`, other, { userid: 'amy' }, 404, 'unknown_person'],
      ['POST', `/${own.id}/merge`, apiKey, { into: own.id }, 400, 'invalid_request'],
      ['POST', `/${own.id}/merge`, apiKey, { into: missing }, 404, 'unknown_person'],
      ['POST', `/${own.id}/merge`, apiKey, { into: 7 }, 400, 'invalid_request'],
      ['PUT', '/settings', apiKey, { remember: 'yes' }, 400, 'invalid_request'],
      ['PUT', '/settings', apiKey, { retention_days: 0 }, 400, 'invalid_request'],
      ['PUT', '/settings', apiKey, { max_faces: 1e9 }, 400, 'invalid_request'],
      ['PUT', '/settings', apiKey, {}, 400, 'invalid_request'],
      ['PUT', '/settings', apiKey, [], 400, 'invalid_request'],
      ['GET', '', objectKey, undefined, 403, 'forbidden'],
      ['GET', '', 'wrong-key', undefined, 401, 'unauthorized'],
      ['POST', '', apiKey, {}, 405, 'method_not_allowed'],
      ['PATCH', '/settings', apiKey, {}, 405, 'method_not_allowed'],
      ['DELETE', '/settings', apiKey, undefined, 405, 'method_not_allowed'],
      ['PUT', `/${own.id}`, apiKey, {}, 405, 'method_not_allowed'],
    ];
    for (const [method, route, caller, body, status, code] of cases) {
      const answer = await api(method, route, caller, body);
      expect([answer.status, answer.body.error?.code], `${method} ${route} ${JSON.stringify(body)}`).to.deep.equal([status, code]);
      valid('error-response', answer.body);
    }
    const asText = await fetch(`${server.url}/api/v1/${FACE_TASK}/unknown-people/${own.id}/name`, { method: 'POST', headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'text/plain' }, body: 'amy' });
    expect(asText.status).to.equal(415);
    // Nothing refused changed anything.
    expect((await list(apiKey)).map((person) => person.id)).to.deep.equal([own.id]);
  });
});
