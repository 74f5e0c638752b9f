import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { faceModelPath } from './support/faces.js';
import { TEST_INFERENCE_SETTINGS } from './support/inference-settings.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { cli, requireBuild } from './support/processes.js';
import { startTestServer } from './support/test-server.js';
import { scratchSqliteStore, startLocalServer } from '../scripts/lib/local-server.js';

/** A models folder as docs/models.md's pulls leave it: the catalogue's files under their names (copies of ../shared's). */
function pulledModels(folder: string): void {
  fs.mkdirSync(folder, { recursive: true });
  fs.copyFileSync(DEFAULT_TEST_MODEL, path.join(folder, path.basename(DEFAULT_TEST_MODEL)));
  fs.copyFileSync(faceModelPath('ultraface-rfb-640'), path.join(folder, 'ultraface-rfb-640.onnx'));
}

describe('models pulled into ./models, as docs/models.md shows', function () {
  this.timeout(120_000);
  let folder: string;

  before(requireBuild);
  beforeEach(() => (folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-pulled-'))));
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  it("the tests' servers and commands read no ./models of the folder they run in: the same model in DETECTD_MODEL and there is no clash", async () => {
    pulledModels(path.join(folder, 'models'));
    const checkout = process.cwd();
    process.chdir(folder);
    try {
      const server = await startTestServer();
      try {
        expect((await (await fetch(`${server.url}/readyz`)).json()).models).to.deep.equal([path.basename(DEFAULT_TEST_MODEL, '.onnx'), 'yunet-n', 'mobilenetv2-12-int8-emb', 'dlib-face-recognition-resnet']);
      } finally {
        await server.close();
      }
      const listed = cli(['models', 'list', '--json'], { ...process.env, DETECTD_MODEL: DEFAULT_TEST_MODEL });
      expect(listed.status, listed.stderr).to.equal(0);
      expect(JSON.parse(listed.stdout).models.map((model: { file: string }) => model.file)).to.not.include(path.join(folder, 'models', 'ultraface-rfb-640.onnx'));
    } finally {
      process.chdir(checkout);
    }
  });

  it('a pulled face model does not become the face default: the embedded YuNet-n stays it, and the start-up log and `models list` say why', async () => {
    pulledModels(folder);
    const why = "the embedded model: the models folder's ultraface-rfb-640 answers only the services that name it; name a face model in DETECTD_MODEL to make it the default";
    const server = await startLocalServer({ DETECTD_MODELS_DIR: folder, ...TEST_INFERENCE_SETTINGS });
    try {
      const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { models: string[] };
      expect(ready.models).to.include('ultraface-rfb-640').and.include('yunet-n');
      const line = server.logText().split('\n').filter(Boolean).map((text) => JSON.parse(text)).find((entry) => entry.msg.startsWith('default face model'));
      expect(line).to.include({ model: 'yunet-n', chosen: why });
    } finally {
      await server.close();
    }
    const listed = cli(['models', 'list', '--json'], { ...process.env, DETECTD_MODELS_DIR: folder });
    expect(listed.status, listed.stderr).to.equal(0);
    const faces = JSON.parse(listed.stdout).models.filter((model: { name: string }) => ['yunet-n', 'ultraface-rfb-640'].includes(model.name));
    expect(faces.map((model: { name: string; default: boolean; chosen?: string }) => [model.name, model.default, model.chosen])).to.deep.equal([
      ['yunet-n', true, why],
      ['ultraface-rfb-640', false, undefined],
    ]);
  });

  it('the start-up log says which face model each face service uses and why: the one it names, or the default and why that is the default', async () => {
    pulledModels(folder);
    const why = "the embedded model: the models folder's ultraface-rfb-640 answers only the services that name it; name a face model in DETECTD_MODEL to make it the default";
    const env = { DETECTD_MODELS_DIR: folder, ...TEST_INFERENCE_SETTINGS };
    const store = scratchSqliteStore();
    // Services made before the server starts, by the command line, as an owner's are.
    const command = { ...process.env, ...env, ...store.env };
    const account = cli(['account', 'create', '--email', 'owner@example.com', '--password', 'a long passphrase'], command);
    expect(account.status, account.stderr).to.equal(0);
    for (const [name, ...model] of [['doorbell'], ['gate', '--model', 'ultraface-rfb-640']]) {
      const created = cli(['service', 'create', '--account', 'owner@example.com', '--name', name, '--type', 'face-detection', ...model], command);
      expect(created.status, created.stderr).to.equal(0);
    }
    const server = await startLocalServer(env, store);
    try {
      const lines = server.logText().split('\n').filter(Boolean).map((text) => JSON.parse(text)).filter((entry) => entry.msg.startsWith('face service '));
      expect(lines.map((entry) => entry.msg).sort()).to.deep.equal([`face service doorbell uses yunet-n: the default face model: ${why}`, 'face service gate uses ultraface-rfb-640: named by the service']);
      expect(lines.find((entry) => entry.service_name === 'gate')).to.include({ model: 'ultraface-rfb-640', chosen: 'named by the service' });
    } finally {
      await server.close();
    }
  });
});
