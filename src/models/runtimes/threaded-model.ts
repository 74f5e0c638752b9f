import type { Worker } from 'node:worker_threads';
import type { RgbImage } from '../../vision/image.js';
import { InferenceWorkerLost } from '../inference-worker-lost.js';
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
 * Starts a worker thread that loads one model with `spec`'s module and runs it on the images it
 * is sent: runtimes whose inference is synchronous JavaScript/wasm (TF.js) run there so that the
 * event loop never stalls behind a model call. Resolves once the model is loaded and warmed up.
 * A worker that stops later is replaced at once (images sent meanwhile wait in the new one's queue
 * until its model is loaded); the image it held fails with InferenceWorkerLost.
 */
export async function startThreadedModel<Summary>(spec: ThreadedDetectorSpec, logger: (message: string) => void): Promise<ThreadedModel<Summary>> {
  const waiting = new Map<number, { resolve: (output: RawOutput) => void; reject: (error: Error) => void }>();
  let closing = false;
  /** The model has loaded once: a worker lost after that is replaced, not a failed load. */
  let everLoaded = false;
  let announceReady: (summary: Summary) => void = () => {};
  let loadFailed: (error: Error) => void = () => {};
  const ready = new Promise<Summary>((resolve, reject) => {
    announceReady = resolve;
    loadFailed = reject;
  });

  const start = (): Worker => {
    const thread = startWorker(moduleUrl('./threaded-detector-entry', import.meta.url), spec);
    let lost = false;
    thread.on('message', (message: WorkerMessage) => {
      if (message.type === 'ready') {
        everLoaded = true;
        announceReady(message.summary as Summary);
      }
      if (message.type === 'log') logger(message.message);
      if (message.type === 'output') waiting.get(message.id)?.resolve(message.output);
      if (message.type === 'failure') waiting.get(message.id)?.reject(new Error(message.message));
      if (message.type === 'output' || message.type === 'failure') waiting.delete(message.id);
    });
    const stop = (error: Error) => {
      if (lost || closing) return;
      lost = true;
      if (!everLoaded) return loadFailed(error);
      for (const waiter of waiting.values()) waiter.reject(new InferenceWorkerLost(error));
      waiting.clear();
      logger(`model worker stopped (${error.message}); restarting it`);
      worker = start();
    };
    thread.on('error', stop);
    thread.on('exit', (code) => stop(new Error(`model worker exited with code ${code}`)));
    return thread;
  };
  let worker = start();

  const summary = await ready;
  let nextId = 0;
  return {
    summary,
    run(image: RgbImage): Promise<RawOutput> {
      const id = nextId++;
      const output = new Promise<RawOutput>((resolve, reject) => waiting.set(id, { resolve, reject }));
      worker.postMessage({ id, width: image.width, height: image.height, data: image.data });
      return output;
    },
    async dispose() {
      closing = true;
      await worker.terminate();
    },
  };
}
