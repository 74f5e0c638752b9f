import type { RgbImage } from '../../vision/image.js';
import type { RawOutput } from '../types.js';

/** What the parent tells a model worker (threaded-model.ts) to load. */
export interface ThreadedDetectorSpec {
  /** URL of a ThreadedRuntimeModule. */
  readonly moduleUrl: string;
}

/**
 * A runtime module that runs in a model worker (runtimes/tfjs/face-recognition-net.ts,
 * face-landmark-net.ts): every one exports its loader under this one name.
 */
export interface ThreadedRuntimeModule<Summary> {
  loadWorkerModel(options: { logger: (message: string) => void }): Promise<WorkerModel<Summary>>;
}

/** A model as loaded inside the worker: the image goes in whole, the raw output comes back; `summary` describes it to the main thread. */
export interface WorkerModel<Summary> {
  readonly summary: Summary;
  run(image: RgbImage): Promise<RawOutput>;
  dispose(): void;
}

export interface RunRequest {
  readonly id: number;
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

export type WorkerMessage =
  | { readonly type: 'ready'; readonly summary: unknown }
  | { readonly type: 'log'; readonly message: string }
  | { readonly type: 'output'; readonly id: number; readonly output: RawOutput }
  | { readonly type: 'failure'; readonly id: number; readonly message: string };
