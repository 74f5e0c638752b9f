import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { io } from '@tensorflow/tfjs-core';
import { setWasmPaths, tf } from './tfjs.js';

/**
 * What every TF.js model of the server shares inside its worker thread: the process-wide backend
 * (tfjs-node where the operator installed it, else the wasm backend shipped in the package) and
 * reading model files from disk, never from a URL.
 */

const require = createRequire(import.meta.url);

export type TfjsRuntime = 'tfjs-node' | 'tfjs-wasm';

// The TF.js backend is process-wide, so it is chosen once however many models a worker loads.
let backend: Promise<TfjsRuntime> | undefined;

/** Selects (once) and returns the TF.js backend this thread runs its models on. */
export function tfjsBackend(log: (msg: string) => void): Promise<TfjsRuntime> {
  backend ??= selectBackend(log);
  return backend;
}

async function selectBackend(log: (msg: string) => void): Promise<TfjsRuntime> {
  try {
    // Not a dependency (its install downloads libtensorflow); used only where the operator installed it.
    // A variable specifier keeps TypeScript from requiring it at compile time.
    const tfjsNode = '@tensorflow/tfjs-node';
    await import(tfjsNode);
    // A tfjs-node built against another tfjs-core registers into that copy, not ours: setBackend says so.
    if (await tf.setBackend('tensorflow')) return 'tfjs-node';
    log('tfjs-node is installed but its backend did not register with this tfjs-core; using wasm');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') {
      log(`tfjs-node could not be loaded (${(err as Error).message}); using wasm`);
    }
  }
  // The .wasm binaries ship inside the package, next to its Node entry point: read them from disk, never a URL.
  setWasmPaths(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm')) + path.sep);
  // Emscripten's Node glue installs process-wide handlers that rethrow every uncaught exception and
  // unhandled rejection (printing its whole minified source); take them out again, leaving the service's own.
  const uncaught = new Set(process.listeners('uncaughtException'));
  const unhandled = new Set(process.listeners('unhandledRejection'));
  try {
    if (!(await tf.setBackend('wasm'))) throw new Error('the TF.js wasm backend failed to initialize');
  } finally {
    for (const l of process.listeners('uncaughtException')) if (!uncaught.has(l)) process.off('uncaughtException', l);
    for (const l of process.listeners('unhandledRejection')) if (!unhandled.has(l)) process.off('unhandledRejection', l);
  }
  return 'tfjs-wasm';
}

/** Reads weight shards named by a manifest, relative to `dir`, each as its own ArrayBuffer. */
export async function readWeightShards(dir: string, manifest: io.WeightsManifestConfig): Promise<{ specs: io.WeightsManifestEntry[]; data: ArrayBuffer[] }> {
  const shards = await Promise.all(manifest.flatMap((group) => group.paths.map((shard) => readFile(path.join(dir, shard)))));
  // Copy each Buffer out: small ones can be views into Node's shared pool.
  const data = shards.map((b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
  return { specs: manifest.flatMap((group) => group.weights), data };
}

/** Reads a TF.js graph model (model.json + weight shards) from a directory. */
export function graphModelFile(modelJsonPath: string): io.IOHandler {
  return {
    async load() {
      const modelJson = JSON.parse(await readFile(modelJsonPath, 'utf8')) as io.ModelJSON;
      return tf.io.getModelArtifactsForJSON(modelJson, async (manifest) => {
        const { specs, data } = await readWeightShards(path.dirname(modelJsonPath), manifest);
        return [specs, data];
      });
    },
  };
}

/** A file of a package's folder beside its Node entry point (the @vladmandic packages export neither package.json nor their model folders). */
export function packageFile(packageName: string, ...segments: string[]): string {
  return path.join(path.dirname(require.resolve(packageName)), '..', ...segments);
}
