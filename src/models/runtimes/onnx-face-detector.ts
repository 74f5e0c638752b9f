import type { RgbImage } from '../../vision/image.js';
import { ultraface } from '../families/ultraface.js';
import { readModelDescription, settingsOf } from '../model-description.js';
import { ModelRefused } from '../model-refused.js';
import type { FileDetector, InferenceSettings } from '../model-repository.js';
import { toImageDetections } from '../postprocess.js';
import type { Detection, PostprocessOptions, PreprocessedInput, RawOutput } from '../types.js';
import { OnnxSessionPool } from './onnx-session-pool.js';
import { detectionLimit, servedOnnxModel } from './onnx-served-model.js';

/**
 * Loads an UltraFace ONNX face detector (families/ultraface.ts): the same session pool and
 * configuration file as the COCO detectors (`threads`, `concurrency`; `nmsIou` defaults to the
 * family's 0.3, not the server's object setting), but its input is the model's fixed, not square,
 * size with the whole image stretched over it. Every reason not to serve it throws ModelRefused.
 */
export async function loadOnnxFaceDetector(modelPath: string, defaults: InferenceSettings, logger: (message: string) => void): Promise<FileDetector> {
  let pool: OnnxSessionPool | undefined;
  try {
    const description = await readModelDescription(modelPath);
    // UltraFace's own NMS IoU, not the COCO detectors' default, unless its configuration file names one.
    const settings = settingsOf(description, { ...defaults, nmsIou: ultraface.nmsIou });
    const opened = await OnnxSessionPool.open(modelPath, settings, logger);
    pool = opened;
    const [, channels, height, width] = opened.signature.inputShape;
    if (channels !== 3 || typeof width !== 'number' || typeof height !== 'number') {
      throw new Error(`an UltraFace model needs a fixed [1, 3, height, width] input, this one is [${opened.signature.inputShape.join(', ')}]`);
    }
    const spec = ultraface.input(width, height);
    const dims = [1, 3, height, width];
    await opened.warmUp(spec, dims);

    // Only the geometry here: the pixels are stretched in the inference worker (onnx-session-entry.ts).
    const preprocess = (image: RgbImage, buffer: number): PreprocessedInput => ({
      buffer,
      image,
      transform: { scaleX: width / image.width, scaleY: height / image.height, padLeft: 0, padTop: 0 },
    });
    const inference = (input: PreprocessedInput, alone: boolean): Promise<RawOutput> => opened.run(input.image, spec, dims, alone);
    const postprocess = (output: RawOutput, input: PreprocessedInput, options: PostprocessOptions): Detection[] => {
      const maxDetections = detectionLimit(options, description);
      return toImageDetections(ultraface.readCandidates(output, width, height, options.minScore), input.transform, input.image, { ...options, maxDetections, nmsIou: settings.nmsIou });
    };

    return {
      ...servedOnnxModel(modelPath, description, settings, opened),
      kind: 'faces',
      family: ultraface.name,
      labels: ['face'],
      parents: ['person'],
      inputSize: { width, height },
      preprocess,
      inference,
      postprocess,
      labelSource: 'family',
    };
  } catch (error) {
    await pool?.close();
    throw new ModelRefused(modelPath, (error as Error).message);
  }
}
