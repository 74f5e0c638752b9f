import os from 'node:os';
import { expect } from 'chai';
import { loadConfig } from '../src/config.js';

describe('inference settings: threads and runs at once', () => {
  const inference = (env: Record<string, string>) => loadConfig(env).inference;

  it('uses every core for a run alone, and runs one per core side by side, at most 4', () => {
    const cores = os.availableParallelism();
    expect(inference({})).to.include({ threads: cores, concurrency: Math.min(cores, 4) });
  });

  it('runs no more side by side than the threads it was given', () => {
    expect(inference({ DETECTD_INFERENCE_THREADS: '1' })).to.include({ threads: 1, concurrency: 1 });
    expect(inference({ DETECTD_INFERENCE_THREADS: '2' })).to.include({ threads: 2, concurrency: 2 });
    expect(inference({ DETECTD_INFERENCE_THREADS: '16' })).to.include({ threads: 16, concurrency: 4 });
    expect(inference({ DETECTD_INFERENCE_THREADS: '16', DETECTD_INFERENCE_CONCURRENCY: '8' })).to.include({ threads: 16, concurrency: 8 });
  });
});
