import type { DetectionResult, DetectOptions, Detector } from '../types.js';

/** What the parent tells a detector worker to load. */
export interface WorkerDetectorSpec {
  /** URL of the module exporting the loader. */
  readonly moduleUrl: string;
  /** Name of the exported `(options: { logger }) => Promise<Detector>` loader. */
  readonly loaderName: string;
}

export type DetectorSummary = Pick<Detector, 'name' | 'family' | 'runtime' | 'labels' | 'inputSize'>;

export interface DetectRequest {
  readonly id: number;
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
  readonly options: Omit<DetectOptions, 'signal'>;
}

export type WorkerMessage =
  | { readonly type: 'ready'; readonly summary: DetectorSummary }
  | { readonly type: 'log'; readonly message: string }
  | { readonly type: 'result'; readonly id: number; readonly result: DetectionResult }
  | { readonly type: 'failure'; readonly id: number; readonly message: string };
