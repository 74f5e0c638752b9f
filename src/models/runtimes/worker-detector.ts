import { Worker } from 'node:worker_threads';
import { ResourcePool } from '../../scheduler/resource-pool.js';
import type { RgbImage } from '../../vision/image.js';
import type { DetectionResult, DetectOptions, Detector } from '../types.js';
import type { DetectorSummary, WorkerDetectorSpec, WorkerMessage } from './worker-detector-protocol.js';

/** Running from src/ through tsx (tests, scripts) rather than compiled dist/. */
const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** URL of a module of this package, relative to `base`, named without extension: `.ts` or `.js` as we run. */
export function moduleUrl(relativePath: string, base: string): string {
  return new URL(relativePath + (FROM_SOURCE ? '.ts' : '.js'), base).href;
}

/**
 * A Detector whose model runs in a worker thread. Calls are serialised (one in flight, the
 * rest wait, honouring their abort signal); the image is copied to the worker, the result
 * copied back.
 */
export async function loadDetectorInWorker(spec: WorkerDetectorSpec, logger: (message: string) => void): Promise<Detector> {
  const entry = moduleUrl('./detector-worker', import.meta.url);
  // From source, the worker must load TypeScript too: register tsx's loader in it first.
  const worker = FROM_SOURCE
    ? new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`, { eval: true, workerData: spec })
    : new Worker(new URL(entry), { workerData: spec });
  const pending = new Map<number, { resolve: (result: DetectionResult) => void; reject: (error: Error) => void }>();
  let failure: Error | undefined;
  let announceReady: (summary: DetectorSummary) => void = () => {};
  const ready = new Promise<DetectorSummary>((resolve, reject) => {
    announceReady = resolve;
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`detector worker exited with code ${code} while loading`)));
  });
  worker.on('message', (message: WorkerMessage) => {
    if (message.type === 'ready') announceReady(message.summary);
    if (message.type === 'log') logger(message.message);
    if (message.type === 'result') pending.get(message.id)?.resolve(message.result);
    if (message.type === 'failure') pending.get(message.id)?.reject(new Error(message.message));
    if (message.type === 'result' || message.type === 'failure') pending.delete(message.id);
  });
  worker.on('error', (error) => {
    failure = error;
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  });

  const summary = await ready;

  const turn = new ResourcePool<number>([0]);
  let nextId = 0;
  async function detect(image: RgbImage, options: DetectOptions): Promise<DetectionResult> {
    return turn.use(() => {
      if (failure) return Promise.reject(new Error(`detector worker failed: ${failure.message}`));
      const id = nextId++;
      const result = new Promise<DetectionResult>((resolve, reject) => pending.set(id, { resolve, reject }));
      const { minScore, maxDetections } = options;
      worker.postMessage({ id, width: image.width, height: image.height, data: image.data, options: { minScore, maxDetections } });
      return result;
    }, options.signal);
  }

  return {
    ...summary,
    detect,
    async dispose() {
      await worker.terminate();
    },
  };
}
