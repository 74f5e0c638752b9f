import { createRequire, syncBuiltinESMExports } from 'node:module';
import type * as WorkerThreads from 'node:worker_threads';

const workerThreads = createRequire(import.meta.url)('node:worker_threads') as typeof WorkerThreads;
/** The Worker class of `node:worker_threads` before any test replaced it. */
export const OriginalWorker = workerThreads.Worker;

/**
 * Makes the worker threads the server's modules start, from `before` to `after` of the calling suite, instances of
 * `subclass`: it is installed on `node:worker_threads` itself, which their live imports see.
 */
export function useWorkerClass(subclass: typeof WorkerThreads.Worker): void {
  before(() => {
    workerThreads.Worker = subclass;
    syncBuiltinESMExports();
  });
  after(() => {
    workerThreads.Worker = OriginalWorker;
    syncBuiltinESMExports();
  });
}
