/** An 8-bit RGB image, interleaved, EXIF orientation already applied. */
export interface RgbImage {
  readonly width: number;
  readonly height: number;
  /** width × height × 3 bytes, row-major, R G B. */
  readonly data: Buffer;
}

/** Pixel rectangle; edges are continuous coordinates (left/top inclusive, right/bottom exclusive). */
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

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
