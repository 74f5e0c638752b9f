import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { expect } from 'chai';
import { openDatabase } from '../src/store/database.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import { DEFAULT_TEST_MODEL, photoPath } from './support/paths.js';
import { cli, cliOk, MAIN, processEnv, requireBuild, startProcess } from './support/processes.js';
import { waitFor } from './support/wait-for.js';
import { SCHEMA } from '../src/features/index.js';

/** Creates an account and a service on it through the CLI; the service's API key. */
function createServiceWithCli(env: NodeJS.ProcessEnv, email: string, name: string): string {
  const account = cli(['account', 'create', '--email', email, '--password', 'a long passphrase'], env);
  expect(account.status, account.stderr).to.equal(0);
  const service = cli(['service', 'create', '--account', email, '--name', name, '--json'], env);
  expect(service.status, service.stderr).to.equal(0);
  return (JSON.parse(service.stdout) as { api_key: string }).api_key;
}

/**
 * A detection request whose body is held back: its headers go out with `Expect: 100-continue`, and
 * `accepted` resolves once the server has taken the request in (answered 100 Continue). `send`
 * then uploads the body and resolves with the answer.
 */
function heldBackDetection(url: string, apiKey: string, body: unknown) {
  const payload = JSON.stringify(body);
  const request = http.request(url + '/api/v1/object-detection', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload), Authorization: `ApiKey ${apiKey}`, Expect: '100-continue' },
  });
  const accepted = new Promise<void>((resolve, reject) => {
    request.once('continue', resolve);
    request.once('error', reject);
  });
  const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
    request.once('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      response.once('error', reject);
    });
    request.once('error', reject);
  });
  request.flushHeaders();
  return {
    accepted,
    send: () => {
      request.end(payload);
      return answer;
    },
  };
}

describe('the built service as a process: CLI, npm start, SIGTERM', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  // Each test gets its own data folder (database, secret): no test leans on another's accounts.
  beforeEach(() => {
    requireBuild();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-process-'));
    env = { ...process.env, DETECTD_DATA_DIR: dataDir, DETECTD_MODEL: DEFAULT_TEST_MODEL, PORT: '0', HOST: '127.0.0.1' };
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('creates an account and a service from the CLI, whose key the server accepts; drains on SIGTERM', async () => {
    const account = cli(['account', 'create', '--email', 'Ops@Example.com', '--password-stdin'], env, 'a long passphrase\n');
    expect(account.status, account.stderr).to.equal(0);
    expect(account.stdout).to.contain('ops@example.com');

    const again = cli(['account', 'create', '--email', 'ops@example.com', '--password', 'another passphrase'], env);
    expect(again.status, again.stderr).to.equal(1);
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

    // A request the server has taken in when SIGTERM arrives is still answered; then the process exits 0.
    const inFlight = heldBackDetection(url, created.api_key, imageRequest(photoPath('dog.jpg')));
    await inFlight.accepted;
    process.kill(-child.pid!, 'SIGTERM');
    await waitFor(() => output.join('').includes('"msg":"shutting down'), { what: 'the "shutting down" log line' });
    const late = await inFlight.send();
    expect(late.status, JSON.stringify(late.body)).to.equal(200);
    expect(late.body.detected_objects.map((object: { name: string }) => object.name)).to.include('dog');
    expect(await exited).to.equal(0);
    const log = output.join('');
    expect(log).to.contain('"msg":"stopped"');
    expect(log).to.not.contain(created.api_key);
    let refused: unknown;
    await fetch(url + '/healthz').catch((error: unknown) => (refused = error));
    expect(refused, 'no longer listening').to.be.instanceOf(Error);
  });

  it('npm start with no model configured serves the embedded YOLOX-nano: the dog, the bicycle and the car at 0.5; a service stored with "centernet" is answered by it', async () => {
    const { DETECTD_MODEL: _unset, ...withoutModel } = env;
    const apiKey = createServiceWithCli(withoutModel, 'embedded@example.com', 'embedded');
    const upgraded = createServiceWithCli(withoutModel, 'upgraded@example.com', 'from an older version');
    // A service saved by a version whose embedded model was CenterNet names it.
    const db = await openDatabase({ dataDir, databaseUrl: undefined }, SCHEMA);
    await db.updateTable('services').set({ model: 'centernet' }).where('name', '=', 'from an older version').execute();
    await db.destroy();
    // In a checkout with no ./models nor ./data (this one's may hold your own pulls and data): this one's other files, linked.
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-fresh-checkout-'));
    for (const entry of fs.readdirSync('.').filter((name) => !['models', 'data', '.git'].includes(name))) fs.symlinkSync(path.resolve(entry), path.join(fresh, entry));
    const server = await startProcess(withoutModel, ['npm', 'start', '--silent'], fresh);
    try {
      const log = server.output.join('');
      expect(log).to.contain('No object model is configured (DETECTD_MODEL, or a model file in the models folder): serving the embedded yolox-nano-416');
      expect(log).to.contain('`npx detectd models pull --list`').and.not.contain('../shared');
      // npm start preloads jemalloc (libjemalloc2, installed by .ci/run) so that libvips does not fragment the heap.
      expect(log).to.contain('"allocator":"jemalloc"');
      expect(log).to.contain('"runtime":"onnxruntime-node"');
      const ready = (await (await fetch(server.url + '/readyz')).json()) as { models: string[] };
      // Zero configuration: the embedded object detector, the embedded face detector and the face describer.
      expect(ready.models).to.deep.equal(['yolox-nano-416', 'yunet-n', 'mobilenetv2-12-int8-emb', 'dlib-face-recognition-resnet']);
      for (const key of [apiKey, upgraded]) {
        const { status, body } = await postDetection(server.url, imageRequest(photoPath('dog.jpg'), { ConfidenceThreshold: '0.5' }), { apiKey: key });
        expect(status, JSON.stringify(body)).to.equal(200);
        const objects = body.detected_objects as { name: string; parent: string; bounding_box: { left: number; bottom: number } }[];
        expect(objects.map((object) => object.name)).to.have.members(['dog', 'bicycle', 'car']);
        const dog = objects.find((object) => object.name === 'dog')!;
        expect(dog.parent).to.equal('animal');
        // Roughly where the dog is (left ≈ 133, top ≈ 220, right ≈ 309, bottom ≈ 545).
        expect(dog.bounding_box.left).to.be.within(100, 170);
        expect(dog.bounding_box.bottom).to.be.within(500, 576);
      }
    } finally {
      await server.stop();
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('a start-up that fails says why in one sentence on standard error, and in one JSON line without a stack for machines', async () => {
    const failedStart = (extra: NodeJS.ProcessEnv) => {
      const result = spawnSync(process.execPath, [MAIN], { env: processEnv({ ...env, ...extra }), encoding: 'utf8' });
      expect(result.status, result.stderr).to.equal(1);
      const fatal = result.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg: string; reason: string; time: string })
        .filter((line) => line.level === 60);
      expect(fatal.map((line) => line.msg)).to.deep.equal(['start-up failed']);
      expect(fatal[0].time, 'ISO 8601 times').to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(result.stderr).to.equal(`detectd: cannot start: ${fatal[0].reason}\n`);
      expect(result.stdout + result.stderr).to.not.match(/\n\s+at /);
      return fatal[0].reason;
    };
    const missing = path.join(dataDir, 'no-such-model.onnx');
    expect(failedStart({ DETECTD_MODEL: missing })).to.contain(missing);
    const taken = await new Promise<http.Server>((resolve) => {
      const listener = http.createServer().listen(0, '127.0.0.1', () => resolve(listener));
    });
    try {
      const port = (taken.address() as { port: number }).port;
      expect(failedStart({ PORT: String(port) })).to.equal(`port ${port} on 127.0.0.1 is already in use by another program: stop it, or set PORT to a free port`);
    } finally {
      taken.close();
    }
    expect(failedStart({ DETECTD_DATABASE_URL: 'postgres://detectd:wrong@127.0.0.1:1/detectd', DETECTD_SECRET: 'x'.repeat(32) })).to.equal(
      'cannot open PostgreSQL postgres://detectd@127.0.0.1:1/detectd: connect ECONNREFUSED 127.0.0.1:1',
    );
    // A database a newer version has migrated (a rollback without restoring the backup).
    cliOk(['account', 'create', '--email', 'a@example.com', '--password', 'a long passphrase'], env);
    const database = new SqliteDatabase(path.join(dataDir, 'detectd.sqlite'));
    database.prepare("insert into kysely_migration (name, timestamp) values ('0999-from-the-future', ?)").run(new Date().toISOString());
    database.close();
    expect(failedStart({})).to.equal(
      `cannot open SQLite ${path.join(dataDir, 'detectd.sqlite')}: its schema was brought up to date by a newer detectd (0999-from-the-future), which this version cannot run on: ` +
        'run that version or a later one, or restore a backup taken before the upgrade (docs/operations.md, "Upgrading")',
    );
  });

  it('stops start-up with one sentence, no stack trace, when DETECTD_MODEL names a file that does not exist', () => {
    const missing = path.join(dataDir, 'yolo26n-640-int8.onnx');
    const result = spawnSync(process.execPath, [MAIN], { env: { ...env, DETECTD_MODEL: missing }, encoding: 'utf8' });
    expect(result.status).to.equal(1);
    expect(result.stderr).to.equal(
      `detectd: cannot start: DETECTD_MODEL names ${missing}, which does not exist: \`npx detectd models pull yolo26n-640-int8\` downloads it into ${path.resolve('models')}, where the server finds it without DETECTD_MODEL\n`,
    );
    expect(result.stdout + result.stderr).to.not.match(/\n\s+at /);
  });

  it('refuses to start with a clear message when the configuration is invalid', () => {
    const result = spawnSync(process.execPath, [MAIN], { env: { ...env, DETECTD_MAX_DETECTIONS: 'lots' }, encoding: 'utf8' });
    expect(result.status).to.equal(2);
    expect(result.stderr).to.contain('DETECTD_MAX_DETECTIONS must be an integer');
  });
});
