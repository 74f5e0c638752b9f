import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { setImmediate } from 'node:timers/promises';
import zlib from 'node:zlib';
import { openDatabase } from '../src/store/database.js';
import { postDetection } from './support/detection-client.js';
import { dogJpeg } from './support/images.js';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { cli, cliAsync, cliOk, requireBuild, startProcess } from './support/processes.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { SCHEMA } from '../src/features/index.js';

/** The CLI's environment for the data folder `dataDir`: no PostgreSQL, no secret from the shell. */
function envFor(dataDir: string): NodeJS.ProcessEnv {
  const { DETECTD_DATABASE_URL: _url, DETECTD_SECRET: _secret, DETECTD_MODEL: _model, ...inherited } = process.env;
  return { ...inherited, DETECTD_DATA_DIR: dataDir };
}

const scratchFolder = (name: string) => fs.mkdtempSync(path.join(os.tmpdir(), `detectd-${name}-`));

/** Services and their keys in the SQLite database of `dataDir`, by name. */
async function servicesIn(dataDir: string): Promise<Map<string, number>> {
  const db = await openDatabase({ dataDir }, SCHEMA);
  try {
    const rows = await db
      .selectFrom('services')
      .leftJoin('api_keys', 'api_keys.service_id', 'services.id')
      .select((eb) => ['services.name', eb.fn.count<number>('api_keys.id').as('keys')])
      .groupBy('services.name')
      .execute();
    return new Map(rows.map((row) => [row.name, Number(row.keys)]));
  } finally {
    await db.destroy();
  }
}

describe('detectd backup and restore (embedded SQLite, real server, real CLI)', function () {
  this.timeout(180_000);
  let server: TestServer;
  const folders: string[] = [];
  const folder = (name: string) => {
    const made = scratchFolder(name);
    folders.push(made);
    return made;
  };

  before(async () => {
    requireBuild();
    server = await startTestServer();
  });
  after(async () => {
    await server?.close();
    for (const made of folders) fs.rmSync(made, { recursive: true, force: true });
  });

  it('a backup taken during writes restores every write acknowledged before it began, none acknowledged after it ended, and the restored server answers the same API keys', async () => {
    const account = await server.domain.accounts.createAccount('writer@example.com', 'a long passphrase');
    const acknowledged: { name: string; apiKey: string; at: number }[] = [];
    const backupFile = path.join(folder('backups'), 'detectd-backup.tar.gz');
    let backupStarted = 0;
    let backupEnded = 0;
    let backup: ReturnType<typeof cliAsync> | undefined;
    // Services with their first key, each a transaction through the running server's own store, one after
    // another; the backup (another process, as an operator runs it) starts after the first 200 and the
    // writes go on while it runs and for 50 more once it has finished.
    let afterBackup = 0;
    for (let index = 0; afterBackup < 50; index++) {
      if (backupEnded) afterBackup++;
      const name = `cam-${String(index).padStart(4, '0')}`;
      const { apiKey } = await server.domain.services.create(account.id, { name });
      acknowledged.push({ name, apiKey, at: Date.now() });
      // SQLite answers synchronously: give the event loop a turn, in which the backup's end is heard.
      await setImmediate();
      if (index === 199) {
        backupStarted = Date.now();
        backup = cliAsync(['backup', backupFile, '--json'], envFor(server.dataDir));
        void backup.then(() => (backupEnded = Date.now()));
      }
    }
    const result = await backup!;
    expect(result.status, result.stderr).to.equal(0);
    const during = acknowledged.filter((write) => write.at > backupStarted && write.at < backupEnded);
    expect(during.length, 'writes acknowledged while the backup ran').to.be.greaterThan(0);
    expect(acknowledged.filter((write) => write.at > backupEnded).length, 'writes acknowledged after it ended').to.be.greaterThan(0);

    const restoredDir = folder('restored');
    const restore = cli(['restore', backupFile], envFor(restoredDir));
    expect(restore.status, restore.stderr).to.equal(0);
    expect(restore.stdout).to.contain(`restored ${backupFile} into ${restoredDir}`);
    const restored = await servicesIn(restoredDir);
    const missing = acknowledged.filter((write) => write.at <= backupStarted && !restored.has(write.name));
    expect(missing.map((write) => write.name), 'writes acknowledged before the backup began').to.deep.equal([]);
    expect(acknowledged.filter((write) => write.at >= backupEnded && restored.has(write.name)), 'writes after it ended').to.deep.equal([]);
    // Whole transactions only: every service in the copy came with its key.
    expect([...restored.values()].filter((keys) => keys !== 1)).to.deep.equal([]);

    // The secret travelled: a server on the restored folder (no DETECTD_SECRET) opens the keys issued before the backup.
    const again = await startProcess({ ...envFor(restoredDir), DETECTD_MODEL: DEFAULT_TEST_MODEL, PORT: '0', HOST: '127.0.0.1' });
    try {
      for (const write of [acknowledged[0], acknowledged[199]]) {
        const answer = await postDetection(again.url, dogJpeg(), { apiKey: write.apiKey, contentType: 'image/jpeg' });
        expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
        expect(answer.body.detected_objects.map((object: { name: string }) => object.name)).to.include('dog');
      }
    } finally {
      await again.stop();
    }
  });

  it('restore is refused while a server runs on the data folder, and goes ahead once it has stopped — also when it was killed', async () => {
    const dataDir = folder('running');
    const env = envFor(dataDir);
    cliOk(['account', 'create', '--email', 'a@example.com', '--password', 'a long passphrase'], env);
    const backupFile = path.join(folder('backup-of-running'), 'b.tar.gz');
    cliOk(['backup', backupFile], env);
    cliOk(['account', 'create', '--email', 'b@example.com', '--password', 'a long passphrase'], env);

    const running = await startProcess({ ...env, PORT: '0', HOST: '127.0.0.1' });
    const refused = cli(['restore', backupFile, '--json'], env);
    expect(refused.status, refused.stderr).to.equal(1);
    const { error } = JSON.parse(refused.stderr) as { error: { code: string; message: string } };
    expect(error.code).to.equal('server_running');
    expect(error.message).to.contain(`a detectd server is running on ${dataDir}`).and.contain('stop it first');
    const accounts = cliOk(['account', 'list', '--json'], env);
    expect((JSON.parse(accounts.stdout) as { accounts: unknown[] }).accounts, 'the database was left alone').to.have.length(2);

    // A crash leaves no stale lock: the kernel drops it with the process.
    running.child.kill('SIGKILL');
    await running.stop();
    const restored = cli(['restore', backupFile, '--json'], env);
    expect(restored.status, restored.stderr).to.equal(0);
    const { replaced } = JSON.parse(restored.stdout) as { replaced: string };
    expect(fs.readdirSync(replaced).sort()).to.include.members(['detectd.sqlite', 'secret.key']);
    expect((JSON.parse(cliOk(['account', 'list', '--json'], env).stdout) as { accounts: { email: string }[] }).accounts.map((entry) => entry.email)).to.deep.equal(['a@example.com']);
  });

  it('refuses a damaged backup, another secret in DETECTD_SECRET, an existing backup file and PostgreSQL settings, each in words, changing nothing', async () => {
    const dataDir = folder('refusals');
    const env = envFor(dataDir);
    cliOk(['account', 'create', '--email', 'a@example.com', '--password', 'a long passphrase'], env);
    const backupFile = path.join(folder('refusal-backups'), 'b.tar.gz');
    cliOk(['backup', backupFile], env);
    const before = fs.readFileSync(path.join(dataDir, 'detectd.sqlite'));
    const refusal = (args: string[], extra: NodeJS.ProcessEnv = {}) => {
      const result = cli([...args, '--json'], { ...env, ...extra });
      expect(result.status, result.stdout).to.not.equal(0);
      return (JSON.parse(result.stderr) as { error: { code: string; message: string } }).error;
    };

    // One byte of the database changed inside an archive that is otherwise whole.
    const tarball = zlib.gunzipSync(fs.readFileSync(backupFile));
    const at = tarball.indexOf('SQLite format 3') + 4096 + 100;
    tarball[at] ^= 0xff;
    const damaged = path.join(path.dirname(backupFile), 'damaged.tar.gz');
    fs.writeFileSync(damaged, zlib.gzipSync(tarball));
    expect(refusal(['restore', damaged])).to.deep.include({ code: 'invalid_backup' });
    expect(refusal(['restore', damaged]).message).to.contain('detectd.sqlite is not the file that was backed up');
    const notABackup = path.join(path.dirname(backupFile), 'photo.tar.gz');
    fs.writeFileSync(notABackup, dogJpeg());
    expect(refusal(['restore', notABackup])).to.deep.include({ code: 'invalid_backup' });

    expect(refusal(['restore', backupFile], { DETECTD_SECRET: 'another-secret-of-at-least-32-characters' }).code).to.equal('secret_mismatch');
    expect(refusal(['backup', backupFile]).code).to.equal('file_exists');
    const postgres = refusal(['backup', path.join(path.dirname(backupFile), 'pg.tar.gz')], { DETECTD_DATABASE_URL: 'postgres://detectd@db.example.com/detectd', DETECTD_SECRET: 'x'.repeat(32) });
    expect(postgres.code).to.equal('postgresql');
    expect(postgres.message).to.contain('pg_dump');
    expect(fs.readFileSync(path.join(dataDir, 'detectd.sqlite')).equals(before), 'the database is untouched').to.equal(true);
    expect(fs.readdirSync(dataDir).filter((name) => name.startsWith('replaced-') || name.startsWith('.restore-'))).to.deep.equal([]);
  });
});
