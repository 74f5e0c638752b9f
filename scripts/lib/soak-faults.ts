import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { accountDomain } from '../../src/accounts/account-domain.js';
import { openDatabase } from '../../src/store/database.js';
import { SCHEMA, TASK_DESCRIPTIONS } from '../../src/features/index.js';
import { freePort } from './free-port.js';
import { plateModelsFolder } from './plate-models-folder.js';

/**
 * `npm run soak -- --faults`: what the server does when the parts it stands on fail under load —
 * two clients detecting objects and one adding known plates, as an operator's cameras and
 * scripts would — for each fault in turn, against the built server (`npm start`'s launcher) in a
 * process of its own:
 *  - PostgreSQL crash-stopped (`pg_ctl -m immediate`) and started again 5 s later: a throwaway
 *    cluster of scripts/postgres-test-cluster.sh (its `crash` and `resume`), never one the machine
 *    already runs;
 *  - the SQLite data folder on a 16 MiB tmpfs filled to the last byte and freed 10 s later
 *    (mounting needs root).
 * For each it prints the answers by status during the fault and after it, the seconds from the
 * end of the fault to the first success of each kind of call, whether the server process stayed
 * up, and whether every known plate acknowledged with a 2xx is listed afterwards. It reports what
 * it sees; it exits 1 when a call was answered 500, a connection dropped, the server died or an
 * acknowledged write is missing.
 */

const CLUSTER_SCRIPT = path.resolve('scripts/postgres-test-cluster.sh');
const SHARED = path.resolve('../shared');
const PLATE_TYPE = 'license-plate';

/** Seconds of load before a fault, and after it ends. */
const BEFORE_S = 10;
const AFTER_S = 25;
/** How long PostgreSQL stays down, and the data folder full. */
const PG_DOWN_S = 5;
const FULL_S = 10;
const TMPFS_SIZE = '16m';

type Phase = 'before' | 'during' | 'after';
type Kind = 'detect' | 'add plate';

interface Outcome {
  readonly kind: Kind;
  readonly phase: Phase;
  /** `201`, `503 storage_unavailable`, `connection refused`… */
  readonly answer: string;
  readonly ok: boolean;
  /** When the answer came, in ms of performance.now(). */
  readonly at: number;
}

interface FaultReport {
  readonly fault: string;
  readonly outcomes: readonly Outcome[];
  /** When the fault ended (the database back, the space freed), in ms of performance.now(). */
  readonly recoveredAt: number;
  /** The server's exit while the load ran, if it exited, with the last lines it wrote. */
  readonly died: string | undefined;
  readonly acknowledged: number;
  /** Acknowledged plates the list lacks afterwards; undefined when no server could list them. */
  readonly missing: readonly string[] | undefined;
}

const newSecret = () => crypto.randomBytes(32).toString('base64url');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Store {
  readonly dataDir: string;
  readonly databaseUrl?: string;
  /** DETECTD_SECRET: PostgreSQL needs one set. */
  readonly secret: string;
}

/** One account with an object-detection service and a licence-plate service; their keys. */
async function newKeys(store: Store): Promise<{ objects: string; plates: string }> {
  const db = await openDatabase({ dataDir: store.dataDir, databaseUrl: store.databaseUrl }, SCHEMA);
  try {
    const domain = accountDomain(db, store.secret, { serviceTypes: TASK_DESCRIPTIONS.types });
    const account = await domain.accounts.createAccount('soak-faults@example.com', 'correct horse battery');
    const objects = await domain.services.create(account.id, { name: 'cameras' });
    const plates = await domain.services.create(account.id, { name: 'gate', type: PLATE_TYPE });
    return { objects: objects.apiKey, plates: plates.apiKey };
  } finally {
    await db.destroy();
  }
}

/** The built server on `store`, serving `model` and the shared plate pair; its output kept for the report. */
class ServerProcess {
  readonly process: ChildProcess;
  readonly url: string;
  #output = '';
  exit: string | undefined;

  constructor(port: number, store: Store, model: string, modelsDir: string) {
    this.url = `http://127.0.0.1:${port}`;
    this.process = spawn(process.execPath, ['dist/src/start.js'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DETECTD_DATA_DIR: store.dataDir,
        DETECTD_SECRET: store.secret,
        ...(store.databaseUrl && { DETECTD_DATABASE_URL: store.databaseUrl }),
        DETECTD_MODEL: model,
        DETECTD_MODELS_DIR: modelsDir,
        DETECTD_LOG_LEVEL: 'warn',
      },
    });
    for (const stream of [this.process.stdout!, this.process.stderr!]) stream.on('data', (chunk: Buffer) => (this.#output = (this.#output + String(chunk)).slice(-20_000)));
    this.process.once('exit', (code, signal) => (this.exit = `exited with ${signal ?? `code ${code}`}`));
  }

  static async start(store: Store, model: string, modelsDir: string): Promise<ServerProcess> {
    const server = new ServerProcess(await freePort(), store, model, modelsDir);
    while (!(await fetch(`${server.url}/readyz`).then((response) => response.ok, () => false))) {
      if (server.exit) throw new Error(`the server ${server.exit}:\n${server.output}`);
      await sleep(250);
    }
    return server;
  }

  get output(): string {
    return this.#output;
  }

  /** The server's last lines that name an error, for the report. */
  errorLines(): string {
    return this.#output
      .split('\n')
      .filter((line) => /error|fatal|terminated|ENOSPC|full/i.test(line))
      .slice(-3)
      .map((line) => line.slice(0, 300))
      .join('\n    ');
  }

  async stop(): Promise<void> {
    if (this.exit) return;
    this.process.kill('SIGTERM');
    await new Promise((resolve) => this.process.once('exit', resolve));
  }
}

/** The answer's status and error code, as the status counts print it. */
async function answerOf(response: Response): Promise<string> {
  if (response.ok) {
    await response.arrayBuffer();
    return String(response.status);
  }
  const body = (await response.json().catch(() => ({}))) as { error?: { code?: string } };
  return `${response.status} ${body.error?.code ?? ''}`.trim();
}

/** A failed fetch, in words: `connection refused`, `connection reset`… */
function connectionFailure(error: unknown): string {
  const code = ((error as { cause?: { code?: string } }).cause?.code ?? '').toLowerCase();
  return code === 'econnrefused' ? 'connection refused' : code === 'econnreset' || code === 'und_err_socket' ? 'connection dropped' : `connection error ${code}`.trim();
}

/**
 * Runs the load against `server` until `done` resolves: two clients detecting objects in dog.jpg,
 * one adding a new known plate per call. `phase()` says which part of the fault an answer falls in.
 */
async function runLoad(url: string, keys: { objects: string; plates: string }, phase: () => Phase, done: Promise<void>) {
  const dog = new Uint8Array(fs.readFileSync(path.join(SHARED, 'eval', 'photos', 'dog.jpg')));
  const outcomes: Outcome[] = [];
  const acknowledged: string[] = [];
  let finished = false;
  void done.then(() => (finished = true));
  let plateNumber = 0;
  const call = async (kind: Kind, send: () => Promise<Response>, onOk: () => void = () => {}) => {
    const started = phase();
    let answer: string;
    try {
      answer = await answerOf(await send());
    } catch (error) {
      answer = connectionFailure(error);
      // A refused connection comes back at once: pace the retries as a camera would.
      await sleep(100);
    }
    const ok = /^2/.test(answer);
    if (ok) onOk();
    outcomes.push({ kind, phase: started, answer, ok, at: performance.now() });
  };
  const detecting = async () => {
    while (!finished) {
      await call('detect', () => fetch(`${url}/api/v1/object-detection`, { method: 'POST', headers: { Authorization: `ApiKey ${keys.objects}`, 'Content-Type': 'image/jpeg' }, body: dog }));
    }
  };
  const addingPlates = async () => {
    while (!finished) {
      // Digits after letters without O or I: no two plates alike once O/0 and I/1 count as one.
      const plate = `SK${++plateNumber}`;
      await call(
        'add plate',
        () =>
          fetch(`${url}/api/v1/${PLATE_TYPE}/known-plates`, {
            method: 'POST',
            headers: { Authorization: `ApiKey ${keys.plates}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ plate, name: `car ${plateNumber}` }),
          }),
        () => acknowledged.push(plate),
      );
    }
  };
  await Promise.all([detecting(), detecting(), addingPlates()]);
  return { outcomes, acknowledged };
}

/** The plates the service lists, or undefined when the server cannot list them. */
async function listedPlates(server: ServerProcess, key: string): Promise<Set<string> | undefined> {
  const response = await fetch(`${server.url}/api/v1/${PLATE_TYPE}/known-plates`, { headers: { Authorization: `ApiKey ${key}` } }).catch(() => undefined);
  if (!response?.ok) return undefined;
  const body = (await response.json()) as { known_plates: { plate: string }[] };
  return new Set(body.known_plates.map((known) => known.plate));
}

/**
 * Runs one fault under load: `fault` starts when the load has run BEFORE_S, and resolves when
 * the fault is over (the part is back); the load goes on AFTER_S more. Acknowledged plates are
 * then listed by the server — or, when it died, by a new one on the same store.
 */
async function underLoad(name: string, store: Store, model: string, fault: () => Promise<void>): Promise<FaultReport> {
  const modelsDir = plateModelsFolder({
    detector: path.join(SHARED, 'models', 'plates', 'yolo-v9-t-416-license-plates-end2end-int8.onnx'),
    reader: path.join(SHARED, 'models', 'plates', 'cct_xs_v2_global.onnx'),
  });
  const keys = await newKeys(store);
  const server = await ServerProcess.start(store, model, modelsDir);
  let lister: ServerProcess | undefined;
  try {
    let phase: Phase = 'before';
    let recoveredAt = 0;
    const faultDone = (async () => {
      await sleep(BEFORE_S * 1000);
      phase = 'during';
      await fault();
      recoveredAt = performance.now();
      phase = 'after';
      await sleep(AFTER_S * 1000);
    })();
    const { outcomes, acknowledged } = await runLoad(server.url, keys, () => phase, faultDone);
    const died = server.exit && `${server.exit}; its last error lines:\n    ${server.errorLines()}`;
    lister = server.exit ? await ServerProcess.start(store, model, modelsDir).catch(() => undefined) : server;
    const listed = lister && (await listedPlates(lister, keys.plates));
    return { fault: name, outcomes, recoveredAt, died, acknowledged: acknowledged.length, missing: listed && acknowledged.filter((plate) => !listed.has(plate)) };
  } finally {
    await server.stop();
    if (lister !== server) await lister?.stop();
    fs.rmSync(modelsDir, { recursive: true, force: true });
  }
}

/** PostgreSQL crash-stopped under load and started again PG_DOWN_S later, on a throwaway cluster. */
async function postgresRestart(model: string): Promise<FaultReport> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-soak-pg-'));
  const cluster = (command: string, ...args: string[]) => execFileSync('bash', [CLUSTER_SCRIPT, command, dir, ...args], { encoding: 'utf8' }).trim();
  const port = String(await freePort());
  const url = cluster('start', port);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-soak-data-'));
  try {
    // The throwaway cluster commits without waiting for its WAL (synchronous_commit=off), which a
    // crash may lose; an acknowledged write must survive one, as on a production cluster.
    const client = new pg.Client(url);
    await client.connect();
    await client.query('alter database detectd set synchronous_commit = on');
    await client.end();
    return await underLoad('PostgreSQL crash-stopped, started again 5 s later', { dataDir, databaseUrl: url, secret: newSecret() }, model, async () => {
      cluster('crash');
      await sleep(PG_DOWN_S * 1000);
      cluster('resume', port);
    });
  } finally {
    cluster('stop');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Writes `folder/filler` until the file system has no byte left. */
function fill(folder: string): void {
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  const fd = fs.openSync(path.join(folder, 'filler'), 'w');
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    // The last bytes: a write smaller than a chunk may still fit.
    for (let size = chunk.length / 2; size >= 1; size /= 2) {
      try {
        fs.writeSync(fd, chunk, 0, size);
      } catch {
        continue;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The SQLite data folder on a small tmpfs, filled under load and freed FULL_S later. */
async function fullDisk(model: string): Promise<FaultReport> {
  const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-soak-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_SIZE}`, 'tmpfs', mountPoint]);
  try {
    const dataDir = path.join(mountPoint, 'data');
    fs.mkdirSync(dataDir);
    return await underLoad(`the SQLite data folder on a 16 MiB tmpfs, filled, freed 10 s later`, { dataDir, secret: newSecret() }, model, async () => {
      fill(mountPoint);
      await sleep(FULL_S * 1000);
      fs.rmSync(path.join(mountPoint, 'filler'));
    });
  } finally {
    execFileSync('umount', [mountPoint]);
    fs.rmdirSync(mountPoint);
  }
}

function counts(outcomes: readonly Outcome[]): string {
  const byAnswer = new Map<string, number>();
  for (const { kind, answer } of outcomes) byAnswer.set(`${kind} ${answer}`, (byAnswer.get(`${kind} ${answer}`) ?? 0) + 1);
  return [...byAnswer].sort().map(([answer, count]) => `${answer}: ${count}`).join(', ') || 'none';
}

/** Prints a fault's figures; true when it met the targets. */
function print(report: FaultReport): boolean {
  const phase = (name: Phase) => report.outcomes.filter((outcome) => outcome.phase === name);
  console.log(`\n${report.fault}`);
  for (const name of ['before', 'during', 'after'] as const) console.log(`  answers ${name}: ${counts(phase(name))}`);
  for (const kind of ['detect', 'add plate'] as const) {
    const first = phase('after').find((outcome) => outcome.kind === kind && outcome.ok);
    console.log(`  first ${kind} success after the fault ended: ${first ? `${((first.at - report.recoveredAt) / 1000).toFixed(1)} s` : 'none'}`);
  }
  console.log(`  server process: ${report.died ? `DIED — ${report.died}` : 'stayed up'}`);
  const missing = report.missing === undefined ? 'could not be listed' : `${report.acknowledged - report.missing.length}/${report.acknowledged} listed afterwards`;
  console.log(`  known plates acknowledged 2xx: ${missing}`);
  const failed = report.outcomes.filter((outcome) => /^500|^connection/.test(outcome.answer)).length;
  return failed === 0 && !report.died && report.missing?.length === 0;
}

/** Runs both faults in turn and prints their figures; true when both met the targets. */
export async function soakFaults(model: string): Promise<boolean> {
  console.log(`soak --faults: ${BEFORE_S} s of load, the fault, ${AFTER_S} s more; two clients detecting objects (${path.basename(model)}), one adding known plates`);
  const results = [print(await postgresRestart(model)), print(await fullDisk(model))];
  return results.every(Boolean);
}
