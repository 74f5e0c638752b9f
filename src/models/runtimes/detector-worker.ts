import { parentPort, workerData } from 'node:worker_threads';
import type { DetectRequest, WorkerDetectorSpec, WorkerMessage } from './worker-detector-protocol.js';
import type { Detector } from '../types.js';

/**
 * Worker-thread entry: loads one detector and answers detect requests one at a time. Runtimes
 * whose inference is synchronous JavaScript/wasm (TF.js) run here so the HTTP event loop never
 * stalls behind a 200 ms model call.
 */
const port = parentPort!;
const spec = workerData as WorkerDetectorSpec;
const post = (message: WorkerMessage) => port.postMessage(message);

const module = (await import(spec.moduleUrl)) as Record<string, (options: { logger: (message: string) => void }) => Promise<Detector>>;
const detector = await module[spec.loaderName]({ logger: (message) => post({ type: 'log', message }) });
// The first call compiles kernels (~1 s for CenterNet): pay it at start-up, not on a request.
const side = 64;
await detector.detect({ width: side, height: side, data: Buffer.alloc(side * side * 3, 114) }, { minScore: 1, maxDetections: 1 });
post({ type: 'ready', summary: { name: detector.name, family: detector.family, runtime: detector.runtime, labels: detector.labels, inputSize: detector.inputSize } });

port.on('message', async (request: DetectRequest) => {
  try {
    const image = { width: request.width, height: request.height, data: Buffer.from(request.data.buffer, request.data.byteOffset, request.data.byteLength) };
    post({ type: 'result', id: request.id, result: await detector.detect(image, request.options) });
  } catch (error) {
    post({ type: 'failure', id: request.id, message: error instanceof Error ? error.message : String(error) });
  }
});
