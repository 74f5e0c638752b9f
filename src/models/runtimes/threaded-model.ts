import type { RgbImage } from '../../vision/image.js';
import type { RawOutput } from '../types.js';
import type { ThreadedDetectorSpec, WorkerMessage } from './threaded-detector-protocol.js';
import { moduleUrl, startWorker } from './worker-thread.js';

/** A model loaded in its own worker thread (threaded-detector-entry.ts), seen from the main thread. */
export interface ThreadedModel<Summary> {
  /** What the model's loader said of it. */
  readonly summary: Summary;
  /** The image is copied to the worker, the raw output copied back; runs queue in the worker, one at a time. */
  run(image: RgbImage): Promise<RawOutput>;
  dispose(): Promise<void>;
}

/**
 * Starts a worker thread that loads one model with `spec`'s loader and runs it on the images it is
 * sent: runtimes whose inference is synchronous JavaScript/wasm (TF.js) run there so that the
 * event loop never stalls behind a model call. Resolves once the model is loaded and warmed up.
 */
export async function startThreadedModel<Summary>(spec: ThreadedDetectorSpec, logger: (message: string) => void): Promise<ThreadedModel<Summary>> {
  const worker = startWorker(moduleUrl('./threaded-detector-entry', import.meta.url), spec);
  const waiting = new Map<number, { resolve: (output: RawOutput) => void; reject: (error: Error) => void }>();
  let failure: Error | undefined;
  let announceReady: (summary: Summary) => void = () => {};
  const ready = new Promise<Summary>((resolve, reject) => {
    announceReady = resolve;
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`model worker exited with code ${code} while loading`)));
  });
  worker.on('message', (message: WorkerMessage) => {
    if (message.type === 'ready') announceReady(message.summary as Summary);
    if (message.type === 'log') logger(message.message);
    if (message.type === 'output') waiting.get(message.id)?.resolve(message.output);
    if (message.type === 'failure') waiting.get(message.id)?.reject(new Error(message.message));
    if (message.type === 'output' || message.type === 'failure') waiting.delete(message.id);
  });
  worker.on('error', (error) => {
    failure = error;
    for (const waiter of waiting.values()) waiter.reject(error);
    waiting.clear();
  });

  const summary = await ready;
  let nextId = 0;
  return {
    summary,
    run(image: RgbImage): Promise<RawOutput> {
      if (failure) return Promise.reject(new Error(`model worker failed: ${failure.message}`));
      const id = nextId++;
      const output = new Promise<RawOutput>((resolve, reject) => waiting.set(id, { resolve, reject }));
      worker.postMessage({ id, width: image.width, height: image.height, data: image.data });
      return output;
    },
    async dispose() {
      await worker.terminate();
    },
  };
}
