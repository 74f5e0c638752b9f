import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { expect } from 'chai';
import { imageRequest, postDetection } from './support/detection-client.js';
import { DEFAULT_TEST_MODEL, photoPath } from './support/paths.js';

const CLI = path.resolve('dist/src/cli.js');
const MAIN = path.resolve('dist/src/main.js');

function cli(args: string[], env: NodeJS.ProcessEnv, input?: string) {
  return spawnSync(process.execPath, [CLI, ...args], { env, input, encoding: 'utf8' });
}

/** Starts the service (`node dist/src/main.js` unless told otherwise) and resolves once it logs its URL. */
async function startProcess(
  env: NodeJS.ProcessEnv,
  command: readonly string[] = [process.execPath, MAIN],
): Promise<{ child: ChildProcess; url: string; output: string[] }> {
  // Its own process group, so that stopping it reaches every process under it (npm → sh → node).
  const child = spawn(command[0], command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const output: string[] = [];
  child.stderr!.on('data', (chunk) => output.push(String(chunk)));
  const lines = readline.createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output.join('')}`)));
    lines.on('line', (line) => {
      output.push(line + '\n');
      if (!line.startsWith('{')) return; // npm's own banner lines
      const entry = JSON.parse(line) as { msg: string; url?: string };
      if (entry.msg === 'listening') resolve(entry.url!);
    });
  });
  return { child, url, output };
}

describe('the built service as a process: CLI, npm start, SIGTERM', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  before(() => {
    if (!fs.existsSync(MAIN)) throw new Error('dist/ is missing: npm test builds it (tsc) before mocha runs');
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
    child.kill('SIGTERM');
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
    const { child, url, output } = await startProcess(withoutModel, ['npm', 'start', '--silent']);
    try {
      const log = output.join('');
      expect(log).to.contain('DETECTD_MODEL is not set: serving the embedded CenterNet');
      expect(log).to.match(/"runtime":"tfjs-(wasm|node)"/);
      const ready = (await (await fetch(url + '/readyz')).json()) as { models: string[] };
      expect(ready.models).to.deep.equal(['centernet']);
      const { status, body } = await postDetection(url, imageRequest(photoPath('dog.jpg')), { apiKey });
      expect(status).to.equal(200);
      const dog = (body.detected_objects as { name: string; parent: string; bounding_box: { left: number; top: number; right: number; bottom: number } }[]).find((object) => object.name === 'dog');
      expect(dog, JSON.stringify(body)).to.not.equal(undefined);
      expect(dog!.parent).to.equal('animal');
      // Roughly where the dog is (left ≈ 133, top ≈ 220, right ≈ 309, bottom ≈ 545).
      expect(dog!.bounding_box.left).to.be.within(100, 170);
      expect(dog!.bounding_box.bottom).to.be.within(500, 576);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    }
  });

  it('refuses to start with a clear message when the configuration is invalid', () => {
    const result = spawnSync(process.execPath, [MAIN], { env: { ...env, DETECTD_MAX_DETECTIONS: 'lots' }, encoding: 'utf8' });
    expect(result.status).to.equal(2);
    expect(result.stderr).to.contain('DETECTD_MAX_DETECTIONS must be an integer');
  });
});
