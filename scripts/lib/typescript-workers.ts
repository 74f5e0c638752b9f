import { createRequire, syncBuiltinESMExports } from 'node:module';
import { pathToFileURL } from 'node:url';
import type * as WorkerThreads from 'node:worker_threads';

/**
 * For detectd run from its TypeScript sources (the scripts, through tsx; the tests run compiled): a worker thread whose
 * entry is a `.ts` file registers tsx's loader before importing it, since in Node 20 a worker inherits
 * neither `--import tsx` nor the hooks it registered. Imported for its effect, first: it replaces the
 * Worker class of `node:worker_threads` itself, which the server's live imports of it then see.
 */
const workerThreads = createRequire(import.meta.url)('node:worker_threads') as typeof WorkerThreads;
const NodeWorker = workerThreads.Worker;

/** The script a worker evaluates to run the TypeScript module `entry` under tsx. */
function throughTsx(entry: string | URL): string {
  const url = String(entry).startsWith('file:') ? String(entry) : pathToFileURL(String(entry)).href;
  return `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url)}); })`;
}

class TypeScriptWorker extends NodeWorker {
  constructor(entry: string | URL, options: WorkerThreads.WorkerOptions = {}) {
    const typeScript = !options.eval && String(entry).endsWith('.ts');
    super(typeScript ? throughTsx(entry) : entry, typeScript ? { ...options, eval: true } : options);
  }
}

workerThreads.Worker = TypeScriptWorker;
syncBuiltinESMExports();
