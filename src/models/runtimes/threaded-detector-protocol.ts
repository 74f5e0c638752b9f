import type { RgbImage } from '../../vision/image.js';
import type { Detector, RawOutput } from '../types.js';

/** What the parent tells a detector worker to load. */
export interface ThreadedDetectorSpec {
  /** URL of a ThreadedRuntimeModule. */
  readonly moduleUrl: string;
}

/** A runtime module that runs in a detector worker (runtimes/tfjs/centernet.ts): every one exports its loader under this one name. */
export interface ThreadedRuntimeModule {
  loadWorkerModel(options: { logger: (message: string) => void }): Promise<WorkerModel>;
}

export type DetectorSummary = Pick<Detector, 'name' | 'kind' | 'family' | 'runtime' | 'device' | 'aliases' | 'labels' | 'parents' | 'inputSize'>;

/** A model as loaded inside the worker: the image goes in whole, the raw output comes back. */
export interface WorkerModel {
  readonly summary: DetectorSummary;
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
  | { readonly type: 'ready'; readonly summary: DetectorSummary }
  | { readonly type: 'log'; readonly message: string }
  | { readonly type: 'output'; readonly id: number; readonly output: RawOutput }
  | { readonly type: 'failure'; readonly id: number; readonly message: string };
