import fs from 'node:fs';
import { expect } from 'chai';
import type { ScratchStore } from '../scripts/lib/local-server.js';
import { describeEachEngine } from './support/engines.js';
import { cropPath, faceModelPath, FACES_DIR } from './support/faces.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { cli, cliOk, requireBuild, type ServerProcess, startProcess } from './support/processes.js';

/** A DeepStack face call with the key in the form, as its clients send it. */
async function faceCall(url: string, route: string, apiKey: string, fields: Record<string, string>, image?: string): Promise<any> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('api_key', apiKey);
  if (image) form.append('image', new Blob([new Uint8Array(fs.readFileSync(image))]), 'photo');
  const response = await fetch(`${url}/v1/vision/face/${route}`, { method: 'POST', body: form });
  expect(response.status, `${route} on ${url}`).to.equal(200);
  return response.json();
}

const GROUP_PHOTO = `${FACES_DIR}/bbt1.jpg`;

/** The faces of bbt1 as recognized, left to right: Raj, Leonard, Howard, Sheldon. */
const recognizedFaces = async (url: string, apiKey: string) =>
  ((await faceCall(url, 'recognize', apiKey, {}, GROUP_PHOTO)).predictions as { userid: string; x_min: number; y_min: number; x_max: number; y_max: number }[]).sort((a, b) => a.x_min - b.x_min);
const recognized = async (url: string, apiKey: string) => (await recognizedFaces(url, apiKey)).map((face) => face.userid);

/** A call of the unknown-people routes (or `POST /api/v1/face-detection` with `route` undefined and an image). */
async function call(url: string, apiKey: string, method: string, route: string | undefined, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}/api/v1/face-detection${route === undefined ? '' : `/unknown-people${route}`}`, {
    method,
    headers: { Authorization: `ApiKey ${apiKey}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const photo = (person: string, index: number) => ({ raw_data: fs.readFileSync(cropPath(person, index)).toString('base64'), frame_id: `${person}-${index}`, source_id: 'gate' });

/**
 * Each replica holds what a service remembers in memory (store/memory-versions.ts): a write on one
 * is seen by the next call on the other, on either engine (two processes on one SQLite folder, or
 * on one PostgreSQL database).
 */
describeEachEngine('a face gallery and unknown people shared by two server processes on one database', (engine, suite) => {
  suite.timeout(180_000);
  let store: ScratchStore;
  let replicas: ServerProcess[] = [];
  let apiKey: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    requireBuild();
    store = await engine.scratch();
    env = { ...process.env, ...store.env, DETECTD_MODEL: `${DEFAULT_TEST_MODEL},${faceModelPath('ultraface-rfb-640')}`, HOST: '127.0.0.1', DETECTD_INFERENCE_THREADS: '1' };
    replicas = [await startProcess({ ...env, PORT: '0' }), await startProcess({ ...env, PORT: '0' })];
    cliOk(['account', 'create', '--email', 'doors@example.com', '--password', 'a long passphrase', '--json'], env);
    const created = cli(['service', 'create', '--account', 'doors@example.com', '--name', 'front door', '--type', 'face-detection', '--json'], env);
    expect(created.status, created.stderr).to.equal(0);
    apiKey = JSON.parse(created.stdout).api_key;
  });
  after(async () => {
    for (const replica of replicas) expect(await replica.stop()).to.equal(0);
    await store?.remove();
  });

  it('a person registered on A is recognized on B at the next call; deleted on B, A no longer names them; corrected on A, B no longer names that face', async () => {
    const [a, b] = replicas;
    // Each replica reads (and holds) the gallery first: what follows must reach what they hold.
    expect(await recognized(a.url, apiKey)).to.deep.equal(['unknown', 'unknown', 'unknown', 'unknown']);
    expect(await recognized(b.url, apiKey)).to.deep.equal(['unknown', 'unknown', 'unknown', 'unknown']);
    await faceCall(a.url, 'register', apiKey, { userid: 'leonard' }, cropPath('leonard', 1));
    expect(await recognized(b.url, apiKey)).to.deep.equal(['unknown', 'leonard', 'unknown', 'unknown']);
    expect((await faceCall(b.url, 'list', apiKey, {})).faces).to.deep.equal(['leonard']);
    await faceCall(b.url, 'delete', apiKey, { userid: 'leonard' });
    expect(await recognized(a.url, apiKey)).to.deep.equal(['unknown', 'unknown', 'unknown', 'unknown']);

    await faceCall(b.url, 'register', apiKey, { userid: 'leonard' }, cropPath('leonard', 1));
    const faces = await recognizedFaces(a.url, apiKey);
    expect(faces.map((face) => face.userid)).to.deep.equal(['unknown', 'leonard', 'unknown', 'unknown']);
    expect(await recognized(b.url, apiKey)).to.deep.equal(['unknown', 'leonard', 'unknown', 'unknown']);
    // "Not this person": Leonard's face of bbt1 itself, so that it rules him out for that face.
    const { x_min, y_min, x_max, y_max } = faces[1];
    const corrected = await fetch(`${a.url}/api/v1/face-detection/people/leonard/not`, {
      method: 'POST',
      headers: { Authorization: `ApiKey ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ raw_data: fs.readFileSync(GROUP_PHOTO).toString('base64'), box: `${x_min},${y_min},${x_max},${y_max}` }),
    });
    expect(corrected.status, await corrected.clone().text()).to.equal(200);
    expect(await recognized(b.url, apiKey)).to.deep.equal(['unknown', 'unknown', 'unknown', 'unknown']);
    expect((await faceCall(b.url, 'list', apiKey, {})).people.map((person: { userid: string; photos: number; negatives: number }) => [person.userid, person.photos, person.negatives])).to.deep.equal([['leonard', 1, 1]]);
  });

  it('faces kept on A are grouped with those kept on B; named on B, A names the person; forgotten on A, B lists nothing', async () => {
    const [a, b] = replicas;
    const created = cli(['service', 'create', '--account', 'doors@example.com', '--name', 'gate', '--type', 'face-detection', '--json'], env);
    expect(created.status, created.stderr).to.equal(0);
    const apiKey = JSON.parse(created.stdout).api_key as string;
    expect((await call(b.url, apiKey, 'PUT', '/settings', { remember: true })).body).to.deep.equal({ remember: true, retention_days: 30, max_faces: 1000 });
    expect((await call(a.url, apiKey, 'POST', undefined, photo('sheldon', 1))).status).to.equal(200);
    expect((await call(b.url, apiKey, 'POST', undefined, photo('sheldon', 2))).status).to.equal(200);
    expect((await call(a.url, apiKey, 'POST', undefined, photo('amy', 1))).status).to.equal(200);
    const listed = (await call(b.url, apiKey, 'GET', '')).body.unknown_people as { id: string; face_count: number }[];
    expect(listed.map((person) => person.face_count).sort()).to.deep.equal([1, 2]);
    const sheldon = listed.find((person) => person.face_count === 2)!;
    const amy = listed.find((person) => person.face_count === 1)!;
    expect((await call(a.url, apiKey, 'GET', `/${sheldon.id}`)).body.faces.map((face: { frame_id: string }) => face.frame_id).sort()).to.deep.equal(['sheldon-1', 'sheldon-2']);

    expect((await call(b.url, apiKey, 'POST', `/${sheldon.id}/name`, { userid: 'sheldon' })).body).to.include({ userid: 'sheldon', registered_faces: 2 });
    expect((await call(a.url, apiKey, 'POST', undefined, photo('sheldon', 3))).body.detected_faces.map((face: { name: string }) => face.name)).to.deep.equal(['sheldon']);

    expect((await call(a.url, apiKey, 'DELETE', `/${amy.id}`)).status).to.equal(200);
    expect((await call(b.url, apiKey, 'GET', '')).body.unknown_people).to.deep.equal([]);
    expect((await call(b.url, apiKey, 'GET', `/${amy.id}`)).status).to.equal(404);
  });
});
