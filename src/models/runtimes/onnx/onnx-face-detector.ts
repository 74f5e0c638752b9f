import type { RgbImage } from '../../../vision/image.js';
import { type FaceFamily, type FaceInput, confidenceOf, rawScoreFor } from '../../families/faces/face-family.js';
import { toImageDetections } from '../../postprocess.js';
import type { Detection, PostprocessOptions, PreprocessedInput, RawOutput } from '../../types.js';
import type { FileDetector } from '../../model-repository.js';
import { detectionLimit, type OnnxFamilyLoader } from './onnx-served-model.js';

/**
 * Longest side, in pixels, of the input of a face detector that takes images at their own size,
 * unless its configuration file's `inputSize` says otherwise: larger images are brought down to
 * it (docs/faces.md gives the accuracy and speed of each choice).
 */
export const DEFAULT_FACE_INPUT_SIDE = 960;

/** An image prepared for a face detector: the input slot and geometry, plus how its input is filled and shaped. */
interface FacePreprocessedInput extends PreprocessedInput {
  readonly layout: FaceInput['layout'];
  readonly dims: readonly number[];
}

/**
 * A face detector of one of the face families: the family's own NMS IoU by default, its input at
 * the image's own size (up to `inputSize`, DEFAULT_FACE_INPUT_SIDE unless configured) or fixed;
 * its faces carry a calibrated confidence (face-family.ts) and, where the family gives them, five
 * landmarks.
 */
export const faceDetectorLoader: OnnxFamilyLoader<FaceFamily, FileDetector> = {
  defaults: (defaults, family) => ({ ...defaults, nmsIou: family.nmsIou }),
  async load({ description, settings, opened, served }, family) {
    const shape = opened.signature.inputShape;
    const maxSide = description.inputSize ?? DEFAULT_FACE_INPUT_SIDE;
    const warmUp = family.input(64, 64, shape, maxSide);
    await opened.warmUp(warmUp.layout, warmUp.dims);

    // Only the geometry here: the pixels are written into the input in the inference worker (onnx-session-entry.ts).
    const preprocess = (image: RgbImage, buffer: number): FacePreprocessedInput => {
      const { layout, dims, transform } = family.input(image.width, image.height, shape, maxSide);
      return { buffer, image, transform, layout, dims };
    };
    const inference = (input: PreprocessedInput, alone: boolean): Promise<RawOutput> => {
      const { layout, dims } = input as FacePreprocessedInput;
      return opened.run(input.image, layout, dims, alone);
    };
    const postprocess = (output: RawOutput, input: PreprocessedInput, options: PostprocessOptions): Detection[] => {
      const { layout, dims, transform } = input as FacePreprocessedInput;
      const faces = family.readFaces(output, { layout, dims, transform }, rawScoreFor(family.calibration, options.minScore));
      for (const face of faces) face.score = confidenceOf(family.calibration, face.score);
      const maxDetections = detectionLimit(options, description);
      return toImageDetections(faces.filter((face) => face.score >= options.minScore), input.transform, input.image, { ...options, maxDetections, nmsIou: settings.nmsIou });
    };
    const [, , height, width] = shape;
    return {
      ...served,
      role: 'detector',
      labels: ['face'],
      parents: ['face'],
      givesLandmarks: family.landmarks,
      inputSize: typeof width === 'number' && typeof height === 'number' ? { width, height } : { width: maxSide, height: maxSide },
      preprocess,
      inference,
      postprocess,
      labelSource: 'family',
    };
  },
};
