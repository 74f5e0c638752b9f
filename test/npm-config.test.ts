import { spawnSync } from 'node:child_process';
import { expect } from 'chai';

describe('npm configuration of the project', () => {
  it('every dependency install script is decided in allowScripts, and npm warns about no project setting', () => {
    const result = spawnSync('npm', ['install-scripts', 'ls'], { encoding: 'utf8' });
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.contain('No packages with unreviewed install scripts');
    expect(result.stderr).to.not.contain('project config');
  });
});
