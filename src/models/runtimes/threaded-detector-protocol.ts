import type { RgbImage } from '../../vision/image.js';
import type { Detector, RawOutput } from '../types.js';

/** What the parent tells a detector worker to load. */
export interface ThreadedDetectorSpec {
  /** URL of the module exporting the loader. */
  readonly moduleUrl: string;
  /** Name of the exported `(options: { logger }) => Promise<WorkerModel>` loader. */
  readonly loaderName: string;
}

export type DetectorSummary = Pick<Detector, 'name' | 'family' | 'runtime' | 'kind' | 'labels' | 'parents' | 'inputSize'>;

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
