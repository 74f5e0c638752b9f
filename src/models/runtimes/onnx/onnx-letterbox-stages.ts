import type { RgbImage } from '../../../vision/image.js';
import { type LetterboxSpec, letterboxTransform } from '../../../vision/letterbox.js';
import type { PreprocessedInput, RawOutput } from '../../types.js';
import type { OnnxSessionPool } from './onnx-session-pool.js';

/**
 * The preprocess and inference stages of an ONNX detector whose input is a letterbox: only the
 * geometry here, the pixels letterboxed in the inference worker (onnx-session-entry.ts).
 */
export function letterboxStages(pool: OnnxSessionPool, letterbox: LetterboxSpec, dims: readonly number[]) {
  return {
    preprocess(image: RgbImage, buffer: number): PreprocessedInput {
      const transform = letterboxTransform(image.width, image.height, letterbox);
      return { buffer, image, transform: { scaleX: transform.scale, scaleY: transform.scale, padLeft: transform.padLeft, padTop: transform.padTop } };
    },
    inference: (input: PreprocessedInput, alone: boolean): Promise<RawOutput> => pool.run(input.image, letterbox, dims, alone),
  };
}
