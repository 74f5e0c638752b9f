import type { RgbImage } from '../../vision/image.js';
import { endToEnd } from '../families/end-to-end.js';
import { toImageDetections } from '../postprocess.js';
import type { PostprocessOptions, Detection, Detector, PreprocessedInput, RawOutput } from '../types.js';
import type { DetectorSummary, ThreadedDetectorSpec, WorkerMessage } from './threaded-detector-protocol.js';
import { moduleUrl, startWorker } from './worker-thread.js';

/**
 * A Detector whose model runs in a worker thread, one image at a time: the image is copied to
 * the worker and the raw output copied back. The model resizes (stretches) the image itself, so
 * `preprocess` only records the stretch; its output has the end-to-end family's layout.
 */
export async function loadThreadedDetector(spec: ThreadedDetectorSpec, logger: (message: string) => void): Promise<Detector> {
  const worker = startWorker(moduleUrl('./threaded-detector-entry', import.meta.url), spec);
  const waiting = new Map<number, { resolve: (output: RawOutput) => void; reject: (error: Error) => void }>();
  let failure: Error | undefined;
  let announceReady: (summary: DetectorSummary) => void = () => {};
  const ready = new Promise<DetectorSummary>((resolve, reject) => {
    announceReady = resolve;
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`detector worker exited with code ${code} while loading`)));
  });
  worker.on('message', (message: WorkerMessage) => {
    if (message.type === 'ready') announceReady(message.summary);
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
  const { width, height } = summary.inputSize;
  let nextId = 0;

  function preprocess(image: RgbImage, buffer: number): PreprocessedInput {
    return { buffer, image, transform: { scaleX: width / image.width, scaleY: height / image.height, padLeft: 0, padTop: 0 } };
  }

  function inference({ image }: PreprocessedInput): Promise<RawOutput> {
    if (failure) return Promise.reject(new Error(`detector worker failed: ${failure.message}`));
    const id = nextId++;
    const output = new Promise<RawOutput>((resolve, reject) => waiting.set(id, { resolve, reject }));
    worker.postMessage({ id, width: image.width, height: image.height, data: image.data });
    return output;
  }

  function postprocess(output: RawOutput, input: PreprocessedInput, options: PostprocessOptions): Detection[] {
    const candidates = endToEnd.readCandidates(output, width, options.minScore);
    return toImageDetections(candidates, input.transform, input.image, { ...options, nmsIou: undefined });
  }

  return {
    ...summary,
    capacity: { inputs: 1, runs: 1 },
    preprocess,
    inference,
    postprocess,
    async dispose() {
      await worker.terminate();
    },
  };
}
