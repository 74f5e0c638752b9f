import type { CropsSpec } from '../../../vision/crops.js';
import type { LetterboxSpec } from '../../../vision/letterbox.js';
import type { PadSpec } from '../../../vision/pad.js';
import type { StretchSpec } from '../../../vision/stretch.js';
import type { RawOutput } from '../../types.js';

/**
 * How the worker fills the model's input from an image: letterboxed (the COCO families), stretched whole over a fixed, maybe not square, input (UltraFace), at its own size
 * in a padded input (YuNet, RetinaFace) — all float NCHW — or as a batch of regions, each stretched
 * over the input, in uint8 NHWC (a plate reader) or normalised float NCHW (an embedder).
 */
export type InputLayout = LetterboxSpec | StretchSpec | PadSpec | CropsSpec;

/** One ONNX Runtime session a worker opens. */
export interface SessionPlan {
  /** Intra-op threads of a run. */
  readonly threads: number;
  /**
   * Idle intra-op threads spin for new work (ORT's default, fastest for a run alone) or sleep:
   * a session that runs beside others must not burn the cores they run on.
   */
  readonly spinning: boolean;
}

/** What a session worker is started with. */
export interface SessionWorkerData {
  readonly modelPath: string;
  readonly sessions: readonly SessionPlan[];
  /** Open the model with its image input's height and width made free (onnx-free-input.ts). */
  readonly freeInputSize?: boolean;
}

/** The model's input and output as the first session reports them. */
export interface SessionSignature {
  readonly inputName: string;
  readonly outputName: string;
  /** The input's declared shape; a symbolic dimension is a string, as ONNX Runtime reports it. */
  readonly inputShape: readonly (number | string)[];
}

export interface RunRequest {
  readonly type: 'run';
  readonly id: number;
  /** Index into the worker's `sessions`. */
  readonly session: number;
  /**
   * The image's RGB pixels: in shared memory when they were decoded into it (no copy), copied
   * otherwise. The worker letterboxes (or stretches) them straight into its own input tensor.
   */
  readonly width: number;
  readonly height: number;
  readonly pixels: Uint8Array;
  readonly layout: InputLayout;
  readonly dims: readonly number[];
}

/** Releases the sessions and ends the worker. */
export interface CloseRequest {
  readonly type: 'close';
}

export type SessionWorkerMessage =
  | { readonly type: 'ready'; readonly signature: SessionSignature }
  | { readonly type: 'output'; readonly id: number; readonly output: RawOutput }
  | { readonly type: 'failure'; readonly id: number; readonly message: string };
