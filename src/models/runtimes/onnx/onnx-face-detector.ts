import type { RgbImage } from '../../../vision/image.js';
import { type FaceFamily, type FaceInput, confidenceOf, rawScoreFor } from '../../families/face-family.js';
import { readModelDescription, settingsOf } from '../../model-description.js';
import type { FileDetector, InferenceSettings } from '../../model-repository.js';
import { toImageDetections } from '../../postprocess.js';
import type { Detection, PostprocessOptions, PreprocessedInput, RawOutput } from '../../types.js';
import { OnnxSessionPool } from './onnx-session-pool.js';
import { detectionLimit, loadOrRefuse, servedOnnxModel } from './onnx-served-model.js';

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
 * Loads an ONNX face detector of `family` (one of families/index.ts's face families, which its
 * configuration file names or its declared outputs show). It shares the session pool and configuration file of the
 * COCO detectors (`threads`, `concurrency`, `nmsIou` — the family's own by default, `inputSize`,
 * `maxDetections`, `aliases`); its faces carry a calibrated confidence (face-family.ts) and, where
 * the family gives them, five landmarks. Every reason not to serve it throws ModelRefused.
 */
export async function loadOnnxFaceDetector(modelPath: string, family: FaceFamily, defaults: InferenceSettings, logger: (message: string) => void): Promise<FileDetector> {
  return loadOrRefuse(modelPath, async (keep) => {
    const description = await readModelDescription(modelPath);
    const settings = settingsOf(description, { ...defaults, nmsIou: family.nmsIou });
    const opened = keep(await OnnxSessionPool.open(modelPath, settings, logger));
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
      ...servedOnnxModel(modelPath, description, settings, opened),
      kind: description.kind ?? 'faces',
      family: family.name,
      labels: ['face'],
      parents: ['face'],
      inputSize: typeof width === 'number' && typeof height === 'number' ? { width, height } : { width: maxSide, height: maxSide },
      preprocess,
      inference,
      postprocess,
      labelSource: 'family',
    };
  });
}
