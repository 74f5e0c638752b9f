import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { COCO_LABELS } from '../../coco-categories.js';
import { EMBEDDED_MODEL_NAME } from '../../embedded-model.js';
import type { RgbImage } from '../../../vision/image.js';
import type { RawOutput } from '../../types.js';
import type { WorkerModel } from '../threaded-detector-protocol.js';

/**
 * The embedded default detector: CenterNet (MobileNetV3 backbone, COCO-80) as shipped in
 * `@vladmandic/human`'s `models/` folder, run by TF.js inside a worker thread. Its graph decodes
 * its own output — `tower_0/detections` is [1, 100, 6] rows of x1, y1, x2, y2 (input pixels),
 * score, 0-based COCO-80 class, the end-to-end family's layout — so no NMS is needed.
 */

const require = createRequire(import.meta.url);

const INPUT_NAME = 'tower_0/images';
const OUTPUT_NAME = 'tower_0/detections';

type Runtime = 'tfjs-node' | 'tfjs-wasm';

// The TF.js backend is process-wide, so it is chosen once however many detectors are loaded.
let backend: Promise<Runtime> | undefined;

async function selectBackend(log: (msg: string) => void): Promise<Runtime> {
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

/** Reads a TF.js graph model (model.json + weight shards) from a directory. */
function fileHandler(modelJsonPath: string): tf.io.IOHandler {
  const dir = path.dirname(modelJsonPath);
  return {
    async load() {
      const modelJson = JSON.parse(await readFile(modelJsonPath, 'utf8')) as tf.io.ModelJSON;
      return tf.io.getModelArtifactsForJSON(modelJson, async (manifest) => {
        const shards = await Promise.all(
          manifest.flatMap((group) => group.paths.map((shard) => readFile(path.join(dir, shard)))),
        );
        const weightSpecs = manifest.flatMap((group) => group.weights);
        // Copy each Buffer out: small ones can be views into Node's shared pool.
        const weightData = shards.map((b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);
        return [weightSpecs, weightData];
      });
    },
  };
}

export async function loadWorkerModel(options: { logger?: (msg: string) => void }): Promise<WorkerModel> {
  const log = options.logger ?? (() => {});
  backend ??= selectBackend(log);
  const runtime = await backend;

  // The package exports neither package.json nor models/: locate it from its Node entry (dist/human.node.js).
  const modelPath = path.join(path.dirname(require.resolve('@vladmandic/human')), '..', 'models', 'centernet.json');
  const model: GraphModel = await loadGraphModel(fileHandler(modelPath));
  const [, height, width] = model.inputs[0]?.shape ?? [];
  if (!height || !width || height < 0 || width < 0) throw new Error(`${modelPath}: input ${INPUT_NAME} has no fixed size`);
  log(`centernet loaded from ${modelPath} on ${runtime} (${width}×${height})`);

  // The model's own preprocessing: stretch (no letterbox) to the fixed input, raw 0–255 float RGB.
  // Half-pixel centres (the cv2/PIL sampling grid) score 0.9 AP higher on coco-val122 than TF's legacy grid.
  async function run(image: RgbImage): Promise<RawOutput> {
    const input = tf.tidy(() => {
      const pixels = tf.tensor4d(Float32Array.from(image.data), [1, image.height, image.width, 3]);
      return tf.image.resizeBilinear(pixels, [height, width], false, true);
    });
    try {
      const output = model.execute({ [INPUT_NAME]: input }, OUTPUT_NAME) as tf.Tensor;
      try {
        return { data: (await output.data()) as Float32Array, dims: output.shape };
      } finally {
        output.dispose();
      }
    } finally {
      input.dispose();
    }
  }

  return {
    // Both backends (wasm, tfjs-node) run on the CPU.
    summary: { name: EMBEDDED_MODEL_NAME, family: 'centernet', runtime, device: 'CPU', aliases: [], labels: COCO_LABELS, inputSize: { width, height } },
    run,
    dispose: () => model.dispose(),
  };
}
