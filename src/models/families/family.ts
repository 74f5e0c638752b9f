import type { LetterboxSpec } from '../../vision/letterbox.js';
import type { OutputTensor } from '../types.js';

/** A raw box proposal in network-input pixels, before NMS and mapping back to the image. */
export interface Candidate {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  score: number;
  classIndex: number;
  /** A face's five landmarks (x, y pairs in network-input pixels), where its family reads them. */
  landmarks?: number[];
}

/**
 * What makes a detector family different: how its input is filled and how its output is read.
 * Sessions, NMS and mapping back to image pixels are shared (a runtime's detector, e.g. runtimes/onnx/onnx-detector.ts; postprocess.ts).
 */
export interface ObjectFamily {
  readonly name: string;
  /** True when an output of this shape is this family's (used when no sidecar names the family). */
  matchesOutput(dims: readonly number[]): boolean;
  /** Input layout for a square input of `size` pixels. */
  letterbox(size: number): LetterboxSpec;
  /** How many classes an output of this shape scores; undefined when the shape does not say (class ids are values). */
  classCount(dims: readonly number[]): number | undefined;
  /** Whether overlapping same-class candidates must still be merged. */
  readonly needsNms: boolean;
  /** Candidates scoring at least `minScore`, in network-input pixels, from the model's (first) output. */
  readCandidates(output: OutputTensor, inputSize: number, minScore: number): Candidate[];
}
