import type * as WorkerThreads from 'node:worker_threads';
import { OriginalWorker } from './worker-threads.js';

/**
 * Worker threads made through a subclass that can kill the worker an inference run is being sent
 * to (install it with useWorkerClass): a real worker thread, really terminated in the middle of a
 * real call. It is terminated just before the run is posted, while idle: terminated inside
 * onnxruntime-node's native run, the addon throws a C++ exception into a JavaScript that is gone
 * and aborts the whole process (2 of 25 runs when it was terminated just after) — a death no
 * server can answer for.
 */
export class KillableWorker extends OriginalWorker {
  /** Set: the next worker sent an image to run (ONNX: a `run` request; TF.js: an image) is killed. */
  static killAtNextRun = false;

  override postMessage(message: unknown, transfer?: readonly WorkerThreads.Transferable[]): void {
    if (KillableWorker.killAtNextRun && isRun(message)) {
      KillableWorker.killAtNextRun = false;
      void this.terminate();
    }
    super.postMessage(message, transfer);
  }
}

const isRun = (message: unknown) => typeof message === 'object' && message !== null && ((message as { type?: string }).type === 'run' || 'data' in message);
