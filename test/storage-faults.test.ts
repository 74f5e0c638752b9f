import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { accountDomain } from '../src/accounts/account-domain.js';
import { VERIFIED_TRUST_MS } from '../src/accounts/recently-verified.js';
import { ServiceLimits } from '../src/limits/service-limits.js';
import { StorageRefusal } from '../src/store/storage-failure.js';
import { openDatabase } from '../src/store/database.js';
import { SCHEMA, TASK_DESCRIPTIONS } from '../src/features/index.js';
import { TEST_SECRET } from './support/engines.js';
import { FaultLoad, type LoadTargets, missingPlates } from './support/fault-load.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { plateModelsFolder } from './support/plate-models.js';
import { ConsoleClient } from './support/console-client.js';
import { dogJpeg } from './support/images.js';
import { freePort } from './support/postgres.js';
import { requireBuild, type ServerProcess, startProcess } from './support/processes.js';
import { waitFor } from './support/wait-for.js';

const CLUSTER_SCRIPT = path.resolve('scripts/postgres-test-cluster.sh');
/** How long the tests wait for the first success once storage is back: far above what it takes (docs/operations.md, "When things fail"), a bound, not a speed goal. */
const RECOVERY_BOUND_MS = 60_000;
/** How long the database stays away, and the disk full: as the operator did it. */
const OUTAGE_MS = 5_000;
const LOAD_BEFORE_MS = 2_000;

function cluster(...args: string[]): string {
  const run = spawnSync('bash', [CLUSTER_SCRIPT, ...args], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`postgres-test-cluster.sh ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout.trim();
}

/** The first account, so the console's administrator: it reads the status page. */
const OPERATOR = { email: 'operator@example.com', password: 'correct horse battery' } as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * On the database of `settings`, before the server starts: an object-detection service with a rate
 * limit and a quota (far above the load: every call counts against both), a licence-plate service,
 * a service whose key the load never uses, and an object-detection service that takes DeepStack
 * calls without a key from this machine.
 */
async function servicesOn(settings: { dataDir: string; databaseUrl?: string }): Promise<{ detectKey: string; plateKey: string; unusedKey: string; detectServiceId: string; keylessServiceId: string }> {
  const db = await openDatabase(settings, SCHEMA);
  try {
    const domain = accountDomain(db, TEST_SECRET, { serviceTypes: TASK_DESCRIPTIONS.types });
    const account = await domain.accounts.createAccount(OPERATOR.email, OPERATOR.password);
    const detect = await domain.services.create(account.id, { name: 'cameras', type: 'object-detection' });
    await domain.services.setLimits(detect.service, { rateLimitPerMinute: 100_000, monthlyQuota: 1_000_000 });
    const plates = await domain.services.create(account.id, { name: 'gate', type: 'license-plate' });
    const unused = await domain.services.create(account.id, { name: 'spare', type: 'object-detection' });
    const keyless = await domain.services.create(account.id, { name: 'doorbell', type: 'object-detection' });
    await domain.services.setKeylessAddressRanges(keyless.service, '');
    return { detectKey: detect.apiKey, plateKey: plates.apiKey, unusedKey: unused.apiKey, detectServiceId: detect.service.id, keylessServiceId: keyless.service.id };
  } finally {
    await db.destroy();
  }
}

/** A DeepStack detection of the dog photo with `apiKey` in the form, as deepstack-python sends it; without one, keyless as Blue Iris calls. */
async function deepStackDetection(url: string, apiKey?: string): Promise<{ status: number; retryAfter: string | null; body: { success: boolean; code?: number; error?: string } }> {
  const form = new FormData();
  form.append('image', new Blob([new Uint8Array(dogJpeg())], { type: 'image/jpeg' }), 'dog.jpg');
  if (apiKey !== undefined) form.append('api_key', apiKey);
  const response = await fetch(`${url}/v1/vision/detection`, { method: 'POST', body: form });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as never };
}

interface Probes {
  readonly ready: number | 'dropped';
  readonly readyBody?: { status: string; storage?: { state: string; reason?: string } };
  readonly healthy: number | 'dropped';
}

/** What /readyz and /healthz answer now (`dropped`: no answer at all). */
async function probes(url: string): Promise<Probes> {
  const ready = await fetch(`${url}/readyz`).catch(() => undefined);
  const healthy = await fetch(`${url}/healthz`).catch(() => undefined);
  return { ready: ready?.status ?? 'dropped', readyBody: (await ready?.json()) as Probes['readyBody'], healthy: healthy?.status ?? 'dropped' };
}

/** Waits (up to the bound) for a detection and a write answered with success after `since`; false when none came. */
function recovery(load: FaultLoad, since: number): Promise<boolean> {
  const recovered = () => load.firstSuccessAfter(since, 'write') !== undefined && load.firstSuccessAfter(since, 'detect') !== undefined;
  return waitFor(recovered, { what: 'a detection and a write to succeed once storage is back', deadlineMs: RECOVERY_BOUND_MS, intervalMs: 100 }).catch(() => false);
}

/**
 * The figures of one fault, for the test's message and docs/operations.md: answers by status
 * before, during and after, seconds from storage's return to the first success of each kind.
 */
function figures(load: FaultLoad, marks: { faultAt: number; backAt: number }) {
  return {
    before: load.tally(0, marks.faultAt),
    during: load.tally(marks.faultAt, marks.backAt),
    after: load.tally(marks.backAt),
    first_detection_after_s: load.firstSuccessAfter(marks.backAt, 'detect'),
    first_write_after_s: load.firstSuccessAfter(marks.backAt, 'write'),
    acknowledged_writes: load.acknowledged.length,
  };
}

/**
 * The rest of a fault begun at `faultAt`: the probes and the console's status page (as `console`
 * signed in before it) halfway through, its end (`end`) after OUTAGE_MS,
 * the wait for recovery, a second more of load, then the probes and the acknowledged writes missing.
 */
async function outage(url: string, load: FaultLoad, targets: LoadTargets, faultAt: number, end: () => void, console: ConsoleClient) {
  await sleep(OUTAGE_MS / 2);
  const during = await probes(url);
  const statusPage = await console.get('/console/status');
  await sleep(OUTAGE_MS / 2);
  end();
  const backAt = Date.now();
  const recovered = await recovery(load, backAt);
  await sleep(1_000);
  await load.stop();
  const after = await probes(url);
  const missing = await missingPlates(targets, load.acknowledged).catch((error: unknown) => String(error));
  const detail = JSON.stringify({ ...figures(load, { faultAt, backAt }), acknowledged_writes_missing: missing.length });
  return { during, statusPage, recovered, after, missing, detail };
}

describe('storage faults: the database going away and a full disk, under load, against the real server process (docs/operations.md "When things fail")', function () {
  this.timeout(240_000);
  /** The object detector and the plate pair: the load detects objects and adds known plates to a licence-plate service. */
  let models: Record<string, string>;
  before(() => {
    requireBuild();
    models = { DETECTD_MODEL: DEFAULT_TEST_MODEL, DETECTD_MODELS_DIR: plateModelsFolder() };
  });
  after(() => fs.rmSync(models.DETECTD_MODELS_DIR, { recursive: true, force: true }));

  describe('PostgreSQL crash-stopped and started again under load', () => {
    let clusterDir: string;
    let port: number;
    let server: ServerProcess | undefined;
    let load: FaultLoad | undefined;
    let dataDir: string;
    let databaseUrl: string;

    before(async () => {
      clusterDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-pg-fault-'));
      port = await freePort();
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-pg-fault-data-'));
    });
    after(async () => {
      await load?.stop();
      await server?.stop();
      cluster('stop', clusterDir);
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('stays up: detections answer (keys verified from memory, calls counted in memory), writes answer 503 storage_unavailable with Retry-After, /readyz is not ready, then everything resumes with every acknowledged write and admitted call present', async () => {
      databaseUrl = cluster('start', clusterDir, String(port));
      const keys = await servicesOn({ dataDir, databaseUrl });
      server = await startProcess({ ...models, DETECTD_DATABASE_URL: databaseUrl, DETECTD_SECRET: TEST_SECRET, DETECTD_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' });
      const targets = { url: server.url, ...keys };
      load = new FaultLoad(targets);
      const admin = new ConsoleClient(server.url);
      expect((await admin.signIn(OPERATOR.email, OPERATOR.password)).status).to.equal(303);
      // This process's own account domain on the same database, with a clock of its own: keys verified, one revoked here, before the crash.
      let clock = Date.now();
      const db = await openDatabase({ dataDir, databaseUrl }, SCHEMA);
      const domain = accountDomain(db, TEST_SECRET, { serviceTypes: TASK_DESCRIPTIONS.types, now: () => new Date(clock) });
      const spare = (await domain.keys.authenticate(keys.unusedKey))!;
      await domain.keys.authenticate(keys.detectKey);
      await domain.keys.revoke(spare, (await domain.keys.active(spare))[0].id);
      // Keyless resolutions likewise: one forgotten by a change to the service's ranges here, one made after it.
      const doorbell = (await domain.services.findAnywhere(keys.keylessServiceId))!;
      await domain.services.keylessServiceFor('127.0.0.1', 'object-detection');
      await domain.services.setKeylessAddressRanges(doorbell, '');
      await domain.services.keylessServiceFor('127.0.0.2', 'object-detection');
      const keylessBefore = await deepStackDetection(server.url);
      await sleep(LOAD_BEFORE_MS);
      const faultAt = Date.now();
      cluster('crash', clusterDir);
      const verifiedKey = await domain.keys.authenticate(keys.detectKey);
      const revokedKey = await domain.keys.authenticate(keys.unusedKey).catch((error: unknown) => error);
      const verifiedKeyless = await domain.services.keylessServiceFor('127.0.0.2', 'object-detection');
      const forgottenKeyless = await domain.services.keylessServiceFor('127.0.0.1', 'object-detection').catch((error: unknown) => error);
      clock += VERIFIED_TRUST_MS + 1;
      const staleKey = await domain.keys.authenticate(keys.detectKey).catch((error: unknown) => error);
      const staleKeyless = await domain.services.keylessServiceFor('127.0.0.2', 'object-detection').catch((error: unknown) => error);
      await db.destroy();
      // The DeepStack door through the outage: a key verified a moment ago opens its service from memory; one never verified is refused in DeepStack's shape.
      const knownKey = await deepStackDetection(server.url, keys.detectKey);
      const unknownKey = await deepStackDetection(server.url, keys.unusedKey);
      const keylessDuring = await deepStackDetection(server.url);
      const { during, statusPage, recovered, after, missing, detail } = await outage(server.url, load, targets, faultAt, () => cluster('resume', clusterDir, String(port)), admin);
      console.log(`      PostgreSQL away for ${OUTAGE_MS / 1000} s: ${detail}`);

      expect(server.child.exitCode, `the server process is running (${detail})`).to.equal(null);
      expect(recovered, `a detection and a write succeeded within ${RECOVERY_BOUND_MS / 1000} s of storage's return`).to.equal(true);
      expect(load.unexpected(['storage_unavailable']), `no 500, no other 5xx, no dropped connection (${detail})`).to.deep.equal([]);
      expect(during, 'while PostgreSQL is away: /healthz alive, /readyz not ready and why').to.deep.include({ ready: 503, healthy: 200 });
      expect(during.readyBody?.storage).to.deep.include({ state: 'unavailable' });
      expect(after, 'once it is back: ready').to.deep.include({ ready: 200, healthy: 200 });
      const refusals = load.answers.filter((answer) => answer.status === 503);
      expect(refusals.every((answer) => answer.retryAfter !== undefined), 'every 503 says when to come back').to.equal(true);
      expect(refusals.every((answer) => answer.kind === 'write'), `detections by a known key answer through the outage (${detail})`).to.equal(true);
      expect(missing, 'every acknowledged write is present').to.deep.equal([]);
      expect(load.acknowledged.length, 'writes were acknowledged before and after the outage').to.be.greaterThan(0);
      expect(verifiedKey?.id, 'a key verified before the outage opens its service from memory').to.equal(keys.detectServiceId);
      expect(revokedKey, 'a key revoked on this replica is forgotten at once').to.be.instanceOf(StorageRefusal);
      expect(staleKey, `a key verified more than ${VERIFIED_TRUST_MS / 1000} s ago is refused`).to.be.instanceOf(StorageRefusal).and.include({ code: 'storage_unavailable' });
      expect(knownKey, 'DeepStack detection by a known key during the outage').to.deep.include({ status: 200 }).and.have.nested.property('body.success', true);
      expect(unknownKey).to.deep.include({ status: 503, retryAfter: '5' });
      expect(unknownKey.body).to.deep.include({ success: false, code: 503 });
      expect(keylessBefore, 'DeepStack detection without a key before the outage').to.deep.include({ status: 200 }).and.have.nested.property('body.success', true);
      expect(keylessDuring, 'DeepStack detection without a key from an address resolved before the outage').to.deep.include({ status: 200 }).and.have.nested.property('body.success', true);
      expect(verifiedKeyless?.id, 'a keyless resolution made before the outage is recalled').to.equal(keys.keylessServiceId);
      expect(forgottenKeyless, 'a change to the service\'s keyless ranges on this replica forgets its resolutions at once').to.be.instanceOf(StorageRefusal);
      expect(staleKeyless, `a keyless resolution more than ${VERIFIED_TRUST_MS / 1000} s old is refused`).to.be.instanceOf(StorageRefusal).and.include({ code: 'storage_unavailable' });
      expect(statusPage.status, 'the console cannot read its session meanwhile: its error page').to.equal(503);
      expect(statusPage.headers.get('retry-after')).to.equal('5');
      expect(statusPage.text).to.include('Try again shortly');
      // Calls admitted while PostgreSQL was away were counted in memory and written once it was back: the month's count is every call admitted.
      const reopened = await openDatabase({ dataDir, databaseUrl }, SCHEMA);
      const counted = await new ServiceLimits(reopened).callsThisMonth(keys.detectServiceId).finally(() => reopened.destroy());
      const detections = load.answers.filter((answer) => answer.kind === 'detect' && answer.status === 200).length;
      expect(counted, 'every detection admitted, counted').to.equal(detections + 1);
    });
  });

  describe('PostgreSQL crash-stopped under a transaction that holds its connection', () => {
    let clusterDir: string;

    before(() => {
      clusterDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-pg-held-'));
    });
    after(() => cluster('stop', clusterDir));

    it('fails the transaction with storage_unavailable, raises no unhandled error event, and the same database object works again once PostgreSQL is back', async () => {
      const port = await freePort();
      const dataDir = clusterDir;
      const db = await openDatabase({ dataDir, databaseUrl: cluster('start', clusterDir, String(port)) }, SCHEMA);
      try {
        // pg emits 'error' on a connection in use when the server ends it: unhandled, that event ends this process (and mocha with it).
        const held = db.transaction().execute(async (trx) => {
          await trx.selectFrom('services').select('id').execute();
          cluster('crash', clusterDir);
          await sleep(500);
          await trx.selectFrom('services').select('id').execute();
        });
        const refused = await held.catch((error: unknown) => error);
        expect(refused).to.be.instanceOf(StorageRefusal).and.include({ code: 'storage_unavailable', retryAfterSeconds: 5 });
        cluster('resume', clusterDir, String(port));
        expect(await db.selectFrom('services').select('id').execute()).to.deep.equal([]);
      } finally {
        await db.destroy();
      }
    });
  });

  describe('PostgreSQL unreachable when the server starts', () => {
    it('the server does not start: it exits with status 1 and says which database and why, in one sentence', async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-pg-unreachable-'));
      try {
        const databaseUrl = `postgres://detectd:detectd@127.0.0.1:${await freePort()}/detectd`;
        const started = spawnSync(process.execPath, ['dist/src/main.js'], {
          env: { ...process.env, DETECTD_MODEL: DEFAULT_TEST_MODEL, DETECTD_DATABASE_URL: databaseUrl, DETECTD_SECRET: TEST_SECRET, DETECTD_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' },
          encoding: 'utf8',
          timeout: 60_000,
        });
        expect(started.status).to.equal(1);
        expect(started.stderr).to.match(/^detectd: cannot start: cannot open PostgreSQL postgres:\/\/detectd@127\.0\.0\.1:\d+\/detectd: .*(ECONNREFUSED|refused)/m);
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });

  describe('the SQLite data folder on a 16 MB filesystem, filled and freed under load', () => {
    let mountPoint: string;
    let server: ServerProcess | undefined;
    let load: FaultLoad | undefined;
    const filler = () => path.join(mountPoint, 'filler');

    before(function () {
      mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-full-disk-'));
      const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mountPoint], { encoding: 'utf8' });
      if (mounted.status !== 0) throw new Error(`this test mounts a tmpfs (the CI runner is root): ${mounted.stderr}`);
    });
    after(async () => {
      await load?.stop();
      await server?.stop();
      spawnSync('umount', [mountPoint]);
      fs.rmSync(mountPoint, { recursive: true, force: true });
    });

    it('stays up: detections answer, writes answer 507 storage_full, the log names the folder and its free space once, /readyz and the status page show it, and it all resumes when space returns', async () => {
      const dataDir = path.join(mountPoint, 'data');
      const keys = await servicesOn({ dataDir });
      server = await startProcess({ ...models, DETECTD_DATA_DIR: dataDir, DETECTD_SECRET: TEST_SECRET, PORT: '0', HOST: '127.0.0.1' });
      const targets = { url: server.url, ...keys };
      load = new FaultLoad(targets);
      const admin = new ConsoleClient(server.url);
      expect((await admin.signIn(OPERATOR.email, OPERATOR.password)).status).to.equal(303);
      await sleep(LOAD_BEFORE_MS);
      const faultAt = Date.now();
      // Every byte left, taken by one file: dd writes until the filesystem refuses (ENOSPC).
      spawnSync('dd', ['if=/dev/zero', `of=${filler()}`, 'bs=64k'], { encoding: 'utf8' });
      expect(fs.statfsSync(mountPoint).bavail, 'the filesystem is full').to.equal(0);
      const { during, statusPage, recovered, after, missing, detail } = await outage(server.url, load, targets, faultAt, () => fs.rmSync(filler()), admin);
      console.log(`      data folder full for ${OUTAGE_MS / 1000} s: ${detail}`);

      expect(server.child.exitCode, `the server process is running (${detail})`).to.equal(null);
      expect(recovered, `a detection and a write succeeded within ${RECOVERY_BOUND_MS / 1000} s of storage's return`).to.equal(true);
      expect(load.unexpected(['storage_full']), `no 500, no other 5xx, no dropped connection (${detail})`).to.deep.equal([]);
      const full = load.answers.filter((answer) => answer.status === 507);
      expect(full.length, `writes were refused while the disk was full (${detail})`).to.be.greaterThan(0);
      expect(full.every((answer) => answer.code === 'storage_full' && answer.kind === 'write' && answer.retryAfter !== undefined), `507 storage_full with Retry-After, for writes only (${detail})`).to.equal(true);
      expect(during, 'while the disk is full: /healthz alive, /readyz not ready and why').to.deep.include({ ready: 503, healthy: 200 });
      expect(during.readyBody?.storage).to.deep.include({ state: 'full' });
      expect(during.readyBody?.storage?.reason).to.include(dataDir);
      expect(statusPage.status, 'the status page reads on a full disk').to.equal(200);
      expect(statusPage.text).to.include('Storage full').and.include(dataDir);
      expect(after, 'once space is back: ready').to.deep.include({ ready: 200, healthy: 200 });
      const logged = server.output.join('').split('\n').filter((line) => line.includes('"storage full"'));
      expect(logged, 'the full disk is logged once, with the folder and its free space').to.have.length(1);
      expect(JSON.parse(logged[0])).to.include({ path: dataDir }).and.to.have.property('free_bytes');
      expect(missing, 'every acknowledged write is present').to.deep.equal([]);
    });
  });
});
