import { Worker } from 'node:worker_threads';

/** Running from src/ through tsx (tests, scripts) rather than compiled dist/. */
const FROM_SOURCE = import.meta.url.endsWith('.ts');

/** URL of a module of this package, relative to `base`, named without extension: `.ts` or `.js` as we run. */
export function moduleUrl(relativePath: string, base: string): string {
  return new URL(relativePath + (FROM_SOURCE ? '.ts' : '.js'), base).href;
}

/** A worker thread running the module at `entry` (a `moduleUrl`). From source, tsx's loader is registered in it first. */
export function startWorker(entry: string, workerData: unknown): Worker {
  return FROM_SOURCE
    ? new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`, { eval: true, workerData })
    : new Worker(new URL(entry), { workerData });
}
