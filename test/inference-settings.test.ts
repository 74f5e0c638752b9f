import os from 'node:os';
import { expect } from 'chai';
import { loadConfig } from '../src/config.js';

describe('inference settings: threads and runs at once', () => {
  const inference = (env: Record<string, string>, cores: number) => loadConfig(env, cores).inference;

  it('by default uses every core for a run alone, and runs one per core side by side, at most 4', () => {
    expect(inference({}, 1)).to.include({ threads: 1, concurrency: 1 });
    expect(inference({}, 2)).to.include({ threads: 2, concurrency: 2 });
    expect(inference({}, 4)).to.include({ threads: 4, concurrency: 4 });
    expect(inference({}, 16)).to.include({ threads: 16, concurrency: 4 });
  });

  it('counts the cores this process may use', () => {
    expect(loadConfig({}).inference.threads).to.equal(os.availableParallelism());
  });

  it('runs no more side by side than the threads it was given, whatever the cores', () => {
    expect(inference({ DETECTD_INFERENCE_THREADS: '1' }, 16)).to.include({ threads: 1, concurrency: 1 });
    expect(inference({ DETECTD_INFERENCE_THREADS: '2' }, 16)).to.include({ threads: 2, concurrency: 2 });
    expect(inference({ DETECTD_INFERENCE_THREADS: '16' }, 2)).to.include({ threads: 16, concurrency: 4 });
    expect(inference({ DETECTD_INFERENCE_THREADS: '16', DETECTD_INFERENCE_CONCURRENCY: '8' }, 2)).to.include({ threads: 16, concurrency: 8 });
  });
});
