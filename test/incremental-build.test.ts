import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { DEFAULT_TEST_MODEL } from './support/paths.js';
import { MAIN, startProcess } from './support/processes.js';

const BUILD_INFO = path.resolve('dist/tsconfig.tsbuildinfo');

/** What a build writes: the build info (content and modification time) and the entry point's modification time. */
function buildState() {
  return {
    buildInfo: crypto.createHash('sha256').update(fs.readFileSync(BUILD_INFO)).digest('hex'),
    buildInfoModified: fs.statSync(BUILD_INFO).mtimeMs,
    mainModified: fs.statSync(MAIN).mtimeMs,
  };
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

  it('the second npm start writes nothing to dist/, and tsc -b reports the project up to date', async function () {
    this.timeout(180_000);
    const first = await npmStart(); // builds if dist/ was stale (e.g. right after a checkout)
    expect(first).to.contain('tsc -b');
    const afterFirst = buildState();

    const second = await npmStart();
    expect(second).to.contain('"msg":"listening"');
    expect(buildState(), 'dist/ untouched by the second start').to.deep.equal(afterFirst);

    const dry = spawnSync('npx', ['tsc', '-b', '--verbose', '--dry'], { encoding: 'utf8' });
    expect(dry.stdout).to.match(/Project 'tsconfig\.json' is up to date/);
    expect(dry.stdout).to.not.contain('would build');
  });
});
