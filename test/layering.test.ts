import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);
const DEPCRUISE = path.resolve('node_modules/.bin/depcruise');

const CONFIG = path.resolve('.dependency-cruiser.cjs');

/** Runs the layering rules (.dependency-cruiser.cjs) over `root`/src; the readable report on failure. */
async function cruise(root: string): Promise<{ ok: boolean; report: string }> {
  try {
    const { stdout } = await run(DEPCRUISE, ['src', '--config', CONFIG, '--output-type', 'err'], { cwd: root, env: { ...process.env, NO_COLOR: '1' } });
    return { ok: true, report: stdout };
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    return { ok: false, report: `${failure.stdout ?? ''}${failure.stderr ?? ''}` };
  }
}

describe('layering of src/ (dependency-cruiser rules in .dependency-cruiser.cjs)', () => {
  it('has no import cycle and no import against the direction transports → tasks → core → scheduler → models → vision', async () => {
    const { ok, report } = await cruise(process.cwd());
    expect(ok, `layering violations:\n${report}`).to.equal(true);
  });

  it('fails on a violation, naming the rule and the import', async () => {
    // A copy of src/ with one model module reaching up into a transport.
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'detectd-layers-'));
    try {
      fs.cpSync('src', path.join(copy, 'src'), { recursive: true });
      fs.copyFileSync('tsconfig.json', path.join(copy, 'tsconfig.json'));
      fs.appendFileSync(path.join(copy, 'src/models/nms.ts'), "\nimport '../transports/http/app.js';\n");
      const { ok, report } = await cruise(copy);
      expect(ok).to.equal(false);
      expect(report).to.contain('models-know-only-vision').and.to.contain('nms.ts');
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});
