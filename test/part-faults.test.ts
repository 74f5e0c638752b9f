import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { readArchive } from '../src/store/backup-archive.js';
import { imageRequest, postDetection } from './support/detection-client.js';
import { photoPath } from './support/paths.js';
import { cliAsync, requireBuild } from './support/processes.js';
import { startTestServer, type TestServer } from './support/test-server.js';
import { mountTmpfs } from './support/tmpfs.js';

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
  let databaseBytes: number;

  before(async () => {
    requireBuild();
    server = await startTestServer();
    // How large a backup's database copy is: the full file systems below are sized around it.
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-backup-size-'));
    try {
      const made = await cliAsync(['backup', path.join(folder, 'size.tar.gz'), '--json'], envFor(server.dataDir));
      expect(made.status, made.stderr).to.equal(0);
      databaseBytes = (await archivedFiles(path.join(folder, 'size.tar.gz'))).find((file) => file.name === 'detectd.sqlite')!.bytes;
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
  after(async () => {
    await server?.close();
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
});
