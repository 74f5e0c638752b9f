import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { readArchive } from '../src/store/backup-archive.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import { KillableWorker } from './support/killable-worker.js';
import { DEFAULT_TEST_MODEL, modelPath, photoPath } from './support/paths.js';
import { cli, cliAsync, MAIN, requireBuild } from './support/processes.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { mountTmpfs } from './support/tmpfs.js';
import { waitFor } from './support/wait-for.js';
import { useWorkerClass } from './support/worker-threads.js';

/** The CLI's environment for the data folder `dataDir`: no PostgreSQL, no secret from the shell. */
function envFor(dataDir: string): NodeJS.ProcessEnv {
  const { DETECTD_DATABASE_URL: _url, DETECTD_SECRET: _secret, DETECTD_MODEL: _model, ...inherited } = process.env;
  return { ...inherited, DETECTD_DATA_DIR: dataDir };
}

const PAGE = 4096;

/** The names of the files in the backup `file`, once readArchive found it whole. */
async function archivedFiles(file: string): Promise<{ name: string; bytes: number }[]> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-unpacked-'));
  try {
    return [...(await readArchive(file, folder)).files];
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** The server still answers a detection and takes a write. */
async function expectServing(server: TestServer, name: string): Promise<void> {
  const detection = await postDetection(server.url, imageRequest(photoPath('dog.jpg')), { apiKey: server.apiKey });
  expect(detection.status, JSON.stringify(detection.body)).to.equal(200);
  await server.createService({ email: `${name}@example.com`, name });
}

describe('the parts detectd stands on, failing: a backup target full or read-only (real CLI, real tmpfs, a server running)', function () {
  this.timeout(300_000);
  let server: TestServer;
  let backupFolder: string;
  /** A whole backup of the server's database. */
  let backupFile: string;
  let databaseBytes: number;

  before(async () => {
    requireBuild();
    server = await startTestServer();
    // How large a backup's database copy is: the full file systems below are sized around it.
    backupFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-backup-size-'));
    backupFile = path.join(backupFolder, 'whole.tar.gz');
    const made = await cliAsync(['backup', backupFile, '--json'], envFor(server.dataDir));
    expect(made.status, made.stderr).to.equal(0);
    databaseBytes = (await archivedFiles(backupFile)).find((file) => file.name === 'detectd.sqlite')!.bytes;
  });
  after(async () => {
    await server?.close();
    fs.rmSync(backupFolder, { recursive: true, force: true });
  });

  it('a read-only target: exit 3, target_not_writable naming the folder and EROFS, nothing written, the server unharmed', async () => {
    const target = mountTmpfs(1024 * 1024, { readOnly: true });
    try {
      const backup = await cliAsync(['backup', path.join(target.path, 'backup.tar.gz'), '--json'], envFor(server.dataDir));
      expect(backup.status, backup.stderr).to.equal(3);
      const { error } = JSON.parse(backup.stderr) as { error: { code: string; message: string } };
      expect(error.code).to.equal('target_not_writable');
      expect(error.message).to.contain(target.path).and.to.contain('EROFS').and.to.contain('read-only');
      expect(fs.readdirSync(target.path)).to.deep.equal([]);
      await expectServing(server, 'after-read-only');
    } finally {
      target.unmount();
    }
  });

  it('a target that fills at any step (copying the database, checking the copy, writing the archive): exit 3 target_full and nothing left, or a whole archive', async () => {
    const pages = Math.ceil(databaseBytes / PAGE);
    const codes = new Set<string>();
    let written = 0;
    // From no room for the copy to room for everything, a page or two at a time: every step of the backup
    // meets the full disk at one of these sizes.
    for (let size = pages - 4; size <= pages + 16; size += 2) {
      const target = mountTmpfs(size * PAGE);
      try {
        const file = path.join(target.path, 'backup.tar.gz');
        const backup = await cliAsync(['backup', file, '--json'], envFor(server.dataDir));
        if (backup.status === 0) {
          written++;
          expect((await archivedFiles(file)).map((listed) => listed.name)).to.have.members(['detectd.sqlite', 'secret.key']);
          continue;
        }
        expect(backup.status, `${size} pages: ${backup.stderr}`).to.equal(3);
        const { error } = JSON.parse(backup.stderr) as { error: { code: string; message: string } };
        expect(error.code).to.equal('target_full');
        expect(error.message).to.contain(target.path).and.to.contain('no room for the backup');
        codes.add(/\((\w+):/.exec(error.message)![1]);
        expect(fs.readdirSync(target.path), `${size} pages: nothing half-written is left`).to.deep.equal([]);
      } finally {
        target.unmount();
      }
    }
    expect(written, 'the largest target takes the whole backup').to.be.greaterThan(0);
    expect([...codes], 'both the database copy and the archive met the full disk').to.include('ENOSPC').and.to.satisfy((seen: string[]) => seen.some((code) => code.startsWith('SQLITE_')));
    await expectServing(server, 'after-full');
  });

  it('a restore into a data folder with no room: exit 3 target_full naming it, not an invalid backup, and nothing replaced', async () => {
    const dataDir = mountTmpfs(Math.ceil(databaseBytes / PAGE / 2) * PAGE);
    try {
      fs.writeFileSync(path.join(dataDir.path, 'secret.key'), 'the secret in place\n');
      const restore = await cliAsync(['restore', backupFile, '--json'], envFor(dataDir.path));
      expect(restore.status, restore.stderr).to.equal(3);
      const { error } = JSON.parse(restore.stderr) as { error: { code: string; message: string } };
      expect(error.code).to.equal('target_full');
      expect(error.message).to.contain(dataDir.path).and.to.contain('no room for the restored database');
      expect(fs.readdirSync(dataDir.path).filter((name) => name !== 'detectd.lock')).to.deep.equal(['secret.key']);
      expect(fs.readFileSync(path.join(dataDir.path, 'secret.key'), 'utf8')).to.equal('the secret in place\n');
    } finally {
      dataDir.unmount();
    }
  });
});

describe('the parts detectd stands on, failing: the server secret file unreadable at start (real server process, real files)', function () {
  this.timeout(120_000);
  const folders: string[] = [];
  before(requireBuild);
  after(() => {
    for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
  });

  /** A data folder whose secret.key `spoil` makes unusable; the path of that secret file. */
  function dataFolderWith(spoil: (secretFile: string) => void): { dataDir: string; secretFile: string } {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-secret-'));
    folders.push(dataDir);
    const secretFile = path.join(dataDir, 'secret.key');
    spoil(secretFile);
    return { dataDir, secretFile };
  }

  /** Starts the server (as `user`, when given) and expects it to stop at once with one sentence; that sentence. */
  function failedStart(dataDir: string, user?: string): string {
    const { DETECTD_SECRET: _secret, DETECTD_DATABASE_URL: _url, ...inherited } = process.env;
    const command = [process.execPath, MAIN];
    const env = { ...inherited, DETECTD_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' };
    const result = user ? spawnSync('runuser', ['-u', user, '--', ...command], { env, cwd: os.tmpdir(), encoding: 'utf8' }) : spawnSync(command[0], command.slice(1), { env, encoding: 'utf8' });
    expect(result.status, result.stdout + result.stderr).to.equal(1);
    expect(result.stdout).to.contain('"msg":"start-up failed"');
    expect(result.stdout + result.stderr).to.not.match(/\n\s+at /);
    return result.stderr;
  }

  const cases: { name: string; spoil: (secretFile: string) => void; reason: string; user?: string }[] = [
    { name: 'a folder', spoil: (file) => fs.mkdirSync(file), reason: '(EISDIR: it is a folder)' },
    { name: 'a link to nothing', spoil: (file) => fs.symlinkSync('/nonexistent/secret.key', file), reason: '(ENOENT: it is a link to /nonexistent/secret.key, which does not exist)' },
    {
      name: 'a file the server\'s user may not read',
      spoil: (file) => {
        fs.chownSync(path.dirname(file), 65534, 65534);
        fs.writeFileSync(file, 'a secret of root\'s\n', { mode: 0o600 });
      },
      reason: '(EACCES: this user may not read it)',
      user: 'nobody',
    },
  ];
  for (const { name, spoil, reason, user } of cases) {
    it(`secret.key ${name}: the server does not start, and says which file and why; the file is left as it is`, () => {
      const { dataDir, secretFile } = dataFolderWith(spoil);
      const before = fs.lstatSync(secretFile);
      expect(failedStart(dataDir, user)).to.equal(
        `detectd: cannot start: the server secret file ${secretFile} cannot be read ${reason}: make it a file the user running detectd can read, ` +
          'restored from a backup if it is lost (every API key of the database needs it), or set DETECTD_SECRET\n',
      );
      const after = fs.lstatSync(secretFile);
      expect([after.ino, after.mode, after.size]).to.deep.equal([before.ino, before.mode, before.size]);
    });
  }

  it('secret.key empty: neither the server nor a command makes a new secret (every stored API key would stop working); both say so', () => {
    const { dataDir, secretFile } = dataFolderWith((file) => fs.writeFileSync(file, '\n'));
    const remedy =
      `the server secret file ${secretFile} is empty: restore it from a backup (every API key of the database needs it), or set DETECTD_SECRET; ` +
      'on a server that never had an account, delete it and a new one is made';
    expect(failedStart(dataDir)).to.equal(`detectd: cannot start: ${remedy}\n`);
    const command = cli(['account', 'create', '--email', 'a@example.com', '--password', 'a long passphrase', '--json'], envFor(dataDir));
    expect(command.status, command.stderr).to.equal(3);
    expect(JSON.parse(command.stderr)).to.deep.equal({ error: { code: 'secret_unreadable', message: remedy } });
    expect(fs.readFileSync(secretFile, 'utf8')).to.equal('\n');
  });
});

describe('the parts detectd stands on, failing: a model file deleted or replaced while serving (real server, real model files, a worker thread killed)', function () {
  this.timeout(300_000);
  useWorkerClass(KillableWorker);
  const folders: string[] = [];
  after(() => {
    for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
  });

  /** A server serving its own copy of the test model, which a test may spoil; the copy's path. */
  async function serverOnCopy(): Promise<{ server: TestServer; file: string }> {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-model-file-'));
    folders.push(folder);
    const file = path.join(folder, path.basename(DEFAULT_TEST_MODEL));
    fs.copyFileSync(DEFAULT_TEST_MODEL, file);
    return { server: await startTestServer({ DETECTD_MODEL: file }), file };
  }

  const nvision = (server: TestServer) => postDetection(server.url, imageRequest(photoPath('dog.jpg')), { apiKey: server.apiKey });
  const deepStack = async (server: TestServer) => {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(fs.readFileSync(photoPath('dog.jpg')))], { type: 'image/jpeg' }), 'dog.jpg');
    const response = await fetch(`${server.url}/v1/vision/detection`, { method: 'POST', body: form, headers: { Authorization: `ApiKey ${server.apiKey}` } });
    return { status: response.status, headers: response.headers, body: (await response.json()) as { success: boolean; error?: string; code?: number } };
  };
  const findsDog = async (server: TestServer) => {
    const answer = await nvision(server);
    return answer.status === 200 && (answer.body.detected_objects as { name: string }[]).some((object) => object.name === 'dog');
  };
  const unavailableLines = (server: TestServer) => server.logText().split('\n').filter((line) => line.includes('model_unavailable until'));

  const cases: { name: string; spoil: (file: string) => void; reason: string }[] = [
    { name: 'deleted', spoil: (file) => fs.rmSync(file), reason: 'is not there (deleted or moved)' },
    { name: 'replaced by garbage', spoil: (file) => fs.writeFileSync(file, 'not a model at all'), reason: 'no longer holds the model loaded from it' },
    { name: 'replaced by another valid model', spoil: (file) => fs.copyFileSync(modelPath('yolox-nano-416'), file), reason: 'no longer holds the model loaded from it' },
  ];
  for (const { name, spoil, reason } of cases) {
    it(`${name}: served from memory until its worker must restart; then 503 model_unavailable naming the model and the file on every door, logged once; back when the file it loaded is`, async () => {
      const { server, file } = await serverOnCopy();
      try {
        const original = fs.readFileSync(file);
        spoil(file);
        expect(await findsDog(server), 'the loaded model still answers').to.equal(true);

        KillableWorker.killAtNextRun = true;
        const killed = await nvision(server);
        expect(KillableWorker.killAtNextRun, 'the worker was killed during the call').to.equal(false);
        expect(killed.status).to.equal(503);

        const model = path.basename(file, '.onnx');
        for (let call = 0; call < 3; call++) {
          const answer = await nvision(server);
          expect(answer.status, JSON.stringify(answer.body)).to.equal(503);
          expect(answer.body.error.code).to.equal('model_unavailable');
          expect(answer.body.error.message).to.contain(`model ${model}`).and.to.contain(file).and.to.contain(reason);
          expect(Number(answer.headers.get('retry-after'))).to.be.greaterThan(0);
          const door = await deepStack(server);
          expect(door.status).to.equal(503);
          expect(door.body.success).to.equal(false);
          expect(door.body.error).to.contain(`model ${model}`).and.to.contain(file);
        }
        expect(unavailableLines(server), 'logged once').to.have.length(1);
        expect(unavailableLines(server)[0]).to.contain(file).and.to.contain(reason);

        fs.writeFileSync(file, original);
        await waitFor(() => findsDog(server), { what: 'the model serving again once its file is back', deadlineMs: 60_000, intervalMs: 200 });
        expect(server.logText()).to.contain(`the file of model ${model} is back`);
        expect(unavailableLines(server)).to.have.length(1);
      } finally {
        await server.close();
      }
    });
  }
});
