import fs from 'node:fs';
import { expect } from 'chai';
import type { ScratchStore } from '../scripts/lib/local-server.js';
import { POSTGRESQL } from './support/engines.js';
import { cropPath, faceModelPath, FACES_DIR } from './support/faces.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { cli, requireBuild, type ServerProcess, startProcess } from './support/processes.js';

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

const recognized = async (url: string, apiKey: string) =>
  ((await faceCall(url, 'recognize', apiKey, {}, `${FACES_DIR}/bbt1.jpg`)).predictions as { userid: string; x_min: number }[])
    .sort((a, b) => a.x_min - b.x_min)
    .map((face) => face.userid);

describe('a face gallery shared by two server processes on one PostgreSQL database', function () {
  this.timeout(180_000);
  let store: ScratchStore;
  let replicas: ServerProcess[] = [];
  let apiKey: string;

  before(async () => {
    requireBuild();
    store = await POSTGRESQL.scratch();
    const env = { ...process.env, ...store.env, DETECTD_MODEL: `${DEFAULT_TEST_MODEL},${faceModelPath('ultraface-rfb-640')}`, HOST: '127.0.0.1', DETECTD_INFERENCE_THREADS: '1' };
    replicas = [await startProcess({ ...env, PORT: '0' }), await startProcess({ ...env, PORT: '0' })];
    expect(cli(['account', 'create', '--email', 'doors@example.com', '--password', 'a long passphrase', '--json'], env).status).to.equal(0);
    const created = cli(['service', 'create', '--account', 'doors@example.com', '--name', 'front door', '--type', 'face-detection', '--json'], env);
    expect(created.status, created.stderr).to.equal(0);
    apiKey = JSON.parse(created.stdout).api_key;
  });
  after(async () => {
    for (const replica of replicas) expect(await replica.stop()).to.equal(0);
    await store?.remove();
  });

  it('a person registered on A is recognized on B at once; deleted on B, A no longer names them', async () => {
    const [a, b] = replicas;
    // bbt1: Raj, Leonard, Howard, Sheldon.
    expect(await recognized(b.url, apiKey)).to.deep.equal(['unknown', 'unknown', 'unknown', 'unknown']);
    await faceCall(a.url, 'register', apiKey, { userid: 'leonard' }, cropPath('leonard', 1));
    expect(await recognized(b.url, apiKey)).to.deep.equal(['unknown', 'leonard', 'unknown', 'unknown']);
    expect((await faceCall(b.url, 'list', apiKey, {})).faces).to.deep.equal(['leonard']);
    await faceCall(b.url, 'delete', apiKey, { userid: 'leonard' });
    expect(await recognized(a.url, apiKey)).to.deep.equal(['unknown', 'unknown', 'unknown', 'unknown']);
  });
});
