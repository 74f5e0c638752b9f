import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { MAIN, startProcess } from './support/processes.js';

/** Every file of dist/ with its modification time: what a build wrote. */
function distFiles(): Map<string, number> {
  const files = fs.readdirSync('dist', { recursive: true, encoding: 'utf8' }).map((file) => path.join('dist', file));
  return new Map(files.map((file) => [file, fs.statSync(file)] as const).flatMap(([file, stats]) => (stats.isFile() ? [[file, stats.mtimeMs] as const] : [])));
}

/** The files of dist/ written (made, or modified) since `before`. */
function writtenSince(before: Map<string, number>): string[] {
  return [...distFiles()].filter(([file, modified]) => before.get(file) !== modified).map(([file]) => file);
}

describe('npm start builds only when dist/ is out of date (tsc -b, incremental)', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;

  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-build-'));
    env = { ...process.env, DETECTD_DATA_DIR: dataDir, DETECTD_MODEL: DEFAULT_TEST_MODEL, PORT: '0', HOST: '127.0.0.1' };
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const npmStart = async () => {
    const server = await startProcess(env, ['npm', 'start']);
    await server.stop();
    return server.output.join('');
  };

  // Not a file of dist/ rewritten: a server or command starting meanwhile (another test's, a replica's) would read it
  // half written (Kysely's bundle read empty: `detectd` exited 3, "SqliteDialect is not a constructor").
  it('the second npm start writes nothing to dist/, and tsc -b reports the project up to date', async function () {
    this.timeout(180_000);
    const first = await npmStart(); // builds if dist/ was stale (e.g. right after a checkout)
    expect(first).to.contain('tsc -b');
    const afterFirst = distFiles();
    expect(afterFirst.has(path.relative('.', MAIN))).to.equal(true);

    const second = await npmStart();
    expect(second).to.contain('"msg":"listening"');
    expect(writtenSince(afterFirst), 'files of dist/ written by the second start').to.deep.equal([]);

    const dry = spawnSync('npx', ['tsc', '-b', '--verbose', '--dry'], { encoding: 'utf8' });
    expect(dry.stdout).to.match(/Project 'tsconfig\.json' is up to date/);
    expect(dry.stdout).to.not.contain('would build');
  });
});
