import type { Box, RgbImage } from '../vision/image.js';

/** One object found in an image, in that image's pixel space. */
export interface Detection {
  /** Index into the detector's `labels`. */
  readonly classIndex: number;
  readonly score: number;
  readonly box: Box;
}

/** Milliseconds spent in each stage of one `detect` call. */
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

export interface DetectOptions {
  /** Detections scoring below this are dropped. */
  readonly minScore: number;
  /** At most this many detections are returned (the highest-scoring). */
  readonly maxDetections: number;
  /** Aborts waiting for the model (the request's deadline). */
  readonly signal?: AbortSignal;
}

/**
 * A loaded object detector, whatever its runtime. Everything above `models/`
 * (the HTTP API, crops, visualization, the video stream, the console) talks only to this.
 */
export interface Detector {
  /** Short model name, e.g. the file name without extension. */
  readonly name: string;
  /** Family module that decodes its outputs, e.g. "ultralytics", "end-to-end", "yolox". */
  readonly family: string;
  /** Runtime that executes it, e.g. "onnxruntime-node". */
  readonly runtime: string;
  /** Class names in output order. */
  readonly labels: readonly string[];
  /** Network input size in pixels. */
  readonly inputSize: { readonly width: number; readonly height: number };
  detect(image: RgbImage, options: DetectOptions): Promise<DetectionResult>;
  dispose(): Promise<void>;
}
