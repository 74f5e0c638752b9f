import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { imageRequest, postDetection } from './support/detection-client.js';
import { DEFAULT_TEST_MODEL, photoPath } from './support/paths.js';
import { cli, MAIN, requireBuild, startProcess } from './support/processes.js';

describe('the built service as a process: CLI, npm start, SIGTERM', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  before(() => {
    requireBuild();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-process-'));
    env = { ...process.env, DETECTD_DATA_DIR: dataDir, DETECTD_MODEL: DEFAULT_TEST_MODEL, PORT: '0', HOST: '127.0.0.1' };
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('creates an account and a service from the CLI, whose key the server accepts; drains on SIGTERM', async () => {
    const account = cli(['account', 'create', '--email', 'Ops@Example.com', '--password-stdin'], env, 'a long passphrase\n');
    expect(account.status, account.stderr).to.equal(0);
    expect(account.stdout).to.contain('ops@example.com');

    const again = cli(['account', 'create', '--email', 'ops@example.com', '--password', 'another passphrase'], env);
    expect(again.status).to.equal(1);
    expect(again.stderr).to.contain('already exists');

    const service = cli(['service', 'create', '--account', 'ops@example.com', '--name', 'cameras', '--json'], env);
    expect(service.status, service.stderr).to.equal(0);
    const created = JSON.parse(service.stdout) as { api_key: string; type: string; name: string };
    expect(created).to.include({ type: 'object-detection', name: 'cameras' });
    expect(created.api_key).to.match(/^dtd_[\w-]{43}$/);

    const { child, url, output } = await startProcess(env);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const first = await postDetection(url, imageRequest(photoPath('dog.jpg')), { apiKey: created.api_key });
    expect(first.status).to.equal(200);
    expect(first.body.detected_objects.map((object: { name: string }) => object.name)).to.include('dog');

    // A request in flight when SIGTERM arrives is still answered; then the process exits 0.
    const inFlight = postDetection(url, imageRequest(photoPath('dog.jpg')), { apiKey: created.api_key });
    await new Promise((resolve) => setTimeout(resolve, 30));
    process.kill(-child.pid!, 'SIGTERM');
    expect((await inFlight).status).to.equal(200);
    expect(await exited).to.equal(0);
    const log = output.join('');
    expect(log).to.contain('"msg":"stopped"');
    expect(log).to.not.contain(created.api_key);
    let refused: unknown;
    await fetch(url + '/healthz').catch((error: unknown) => (refused = error));
    expect(refused, 'no longer listening').to.be.instanceOf(Error);
  });

  it('npm start with no model configured serves the embedded TF.js CenterNet, which finds the dog', async () => {
    const { DETECTD_MODEL: _unset, ...withoutModel } = env;
    const service = cli(['service', 'create', '--account', 'ops@example.com', '--name', 'embedded', '--json'], withoutModel);
    const { api_key: apiKey } = JSON.parse(service.stdout) as { api_key: string };
    const server = await startProcess(withoutModel, ['npm', 'start', '--silent']);
    try {
      const log = server.output.join('');
      expect(log).to.contain('DETECTD_MODEL is not set: serving the embedded CenterNet');
      // npm start preloads jemalloc (libjemalloc2, installed by .ci/run) so that libvips does not fragment the heap.
      expect(log).to.contain('"allocator":"jemalloc"');
      expect(log).to.match(/"runtime":"tfjs-(wasm|node)"/);
      const ready = (await (await fetch(server.url + '/readyz')).json()) as { models: string[] };
      expect(ready.models).to.deep.equal(['centernet']);
      const { status, body } = await postDetection(server.url, imageRequest(photoPath('dog.jpg')), { apiKey });
      expect(status).to.equal(200);
      const objects = body.detected_objects as { name: string; parent: string; bounding_box: { left: number; bottom: number } }[];
      const dog = objects.find((object) => object.name === 'dog');
      expect(dog, JSON.stringify(body)).to.not.equal(undefined);
      expect(dog!.parent).to.equal('animal');
      // Roughly where the dog is (left ≈ 133, top ≈ 220, right ≈ 309, bottom ≈ 545).
      expect(dog!.bounding_box.left).to.be.within(100, 170);
      expect(dog!.bounding_box.bottom).to.be.within(500, 576);
    } finally {
      await server.stop();
    }
  });

  it('refuses to start with a clear message when the configuration is invalid', () => {
    const result = spawnSync(process.execPath, [MAIN], { env: { ...env, DETECTD_MAX_DETECTIONS: 'lots' }, encoding: 'utf8' });
    expect(result.status).to.equal(2);
    expect(result.stderr).to.contain('DETECTD_MAX_DETECTIONS must be an integer');
  });
});
