import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** This module's extension: `.js` in dist/, `.ts` where a TypeScript loader runs the sources. */
const EXTENSION = path.extname(import.meta.url);

/** URL of a module of this package, relative to `base`, named without extension: with the extension this one has. */
export function moduleUrl(relativePath: string, base: string): string {
  return new URL(relativePath + EXTENSION, base).href;
}

/** A worker thread running the module at `entry` (a `moduleUrl`). */
export function startWorker(entry: string, workerData: unknown): Worker {
  return new Worker(new URL(entry), { workerData });
}
