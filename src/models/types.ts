import type { Box, Point, RgbImage } from '../vision/image.js';
import type { ModelKind, ModelRole } from './model-roles.js';

export type { ModelKind, ModelRole } from './model-roles.js';

/**
 * What every loaded model is, whatever its role, runtime or family: what the registry lists, a
 * scheduler runs (src/scheduler/), `/readyz` and the console's status page report.
 */
export interface ServedModel {
  /** Short model name, e.g. the file name without extension. */
  readonly name: string;
  /** What it does in a task's pipeline: its configuration's `role`, else its family's. */
  readonly role: ModelRole;
  /** What it finds or makes: its configuration's `kind`, else its family's (model-roles.ts); a task's step is given only a model of its role and kind. */
  readonly kind: ModelKind;
  /** Family module that reads its outputs, e.g. "ultralytics", "fast-plate-ocr". */
  readonly family: string;
  /** Runtime that executes it, e.g. "onnxruntime-node". */
  readonly runtime: string;
  /** Where its runs execute: `CPU`, or the accelerator (execution provider) its runtime uses. */
  readonly device: string;
  /** Other names it answers to besides `name` (its configuration's `aliases`). */
  readonly aliases: readonly string[];
  /** Network input size in pixels. */
  readonly inputSize: { readonly width: number; readonly height: number };
  /**
   * `inputs`: images the model holds prepared at once (input slots numbered 0 … inputs − 1);
   * `runs`: runs the runtime takes at once. One more input than runs lets the next image be
   * decoded and preprocessed while the current one runs. The scheduler keeps to both.
   */
  readonly capacity: { readonly inputs: number; readonly runs: number };
  dispose(): Promise<void>;
}

/** One object found in an image, in that image's pixel space. */
export interface Detection {
  /** Index into the detector's `labels`. */
  readonly classIndex: number;
  readonly score: number;
  readonly box: Box;
  /**
   * A face's five landmarks, where its detector gives them (YuNet, RetinaFace), in the order
   * FACE_LANDMARKS names: what aligns the face for a recognizer.
   */
  readonly landmarks?: readonly Point[];
}

/** What each of a face's five landmarks is, in order ("left" and "right" as the image shows them). */
export const FACE_LANDMARKS = ['left eye', 'right eye', 'nose tip', 'left mouth corner', 'right mouth corner'] as const;

/** Milliseconds spent in each stage of one detection. */
export interface DetectorTimings {
  preprocess: number;
  inference: number;
  postprocess: number;
}

export interface DetectionResult {
  /** Sorted by score, highest first; boxes clipped to the image. */
  readonly detections: Detection[];
  readonly timings: DetectorTimings;
}

export interface PostprocessOptions {
  /** Detections scoring below this are dropped. */
  readonly minScore: number;
  /** At most this many detections are returned (the highest-scoring). */
  readonly maxDetections: number;
}

/** An input or output a model file declares, whatever its runtime: what a family recognises its outputs by. */
export interface TensorDeclaration {
  readonly name: string;
  /** Each dimension: a number when fixed, its symbolic name (or null) when not. */
  readonly shape: readonly (number | string | null)[] | undefined;
}

/** One output tensor of a model run. */
export interface OutputTensor {
  /** The output's name in the model. */
  readonly name: string;
  readonly data: Float32Array;
  readonly dims: readonly number[];
}

/** Every output of one model run, in the model's output order, as its family reads them. */
export interface RawOutput {
  readonly tensors: readonly OutputTensor[];
  /** Milliseconds of `inference` spent preprocessing, where the runtime does the pixel work in its own thread. */
  readonly preprocessMs?: number;
}

/** Where the image landed inside the network input: maps network-input boxes back to image pixels. */
export interface InputTransform {
  readonly scaleX: number;
  readonly scaleY: number;
  readonly padLeft: number;
  readonly padTop: number;
}

/** An image written into one of the detector's input buffers, ready for inference. */
export interface PreprocessedInput {
  /** Which input buffer holds it. */
  readonly buffer: number;
  readonly image: RgbImage;
  readonly transform: InputTransform;
}

/**
 * A loaded detector of any kind (objects, faces, plates), whatever its runtime, split into its
 * stages so that the model's scheduler (src/scheduler/) decides who runs when: a detector has no
 * queue of its own. Outside `models/`, only the scheduler calls these stages; the composition root
 * loads and disposes models (load-models.ts, registry.ts), and the rest sees their names and the
 * result types (`Detection`). No code outside `models/` imports a runtime or a family (a layering rule).
 */
export interface Detector extends ServedModel {
  readonly role: 'detector';
  /** Class names in output order. */
  readonly labels: readonly string[];
  /** Parent category of each label (same order), e.g. "vehicle" for "truck". */
  readonly parents: readonly string[];
  /** Whether each detection carries the five face landmarks (FACE_LANDMARKS), as a face family's may; else a face needs a landmarker to be described. */
  readonly givesLandmarks?: boolean;
  /**
   * Prepares the image for input slot `buffer` (synchronous). A runtime may leave the pixel work to
   * its own thread, done in `inference` and counted in its output's `preprocessMs`.
   */
  preprocess(image: RgbImage, buffer: number): PreprocessedInput;
  /**
   * Runs the model on a preprocessed input. `alone`: the scheduler starts no other run of this model
   * until this one ends, so it may use every thread the model was given.
   */
  inference(input: PreprocessedInput, alone: boolean): Promise<RawOutput>;
  /** Output → detections in image pixels: read, merged, clipped, sorted, capped. */
  postprocess(output: RawOutput, input: PreprocessedInput, options: PostprocessOptions): Detection[];
}

/** Whether a loaded model is a detector (the stages a ModelScheduler's `detect` runs). */
export const isDetector = (model: ServedModel): model is Detector => model.role === 'detector';
