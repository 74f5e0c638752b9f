import type { RgbImage } from '../../vision/image.js';
import { stretchInto } from '../../vision/stretch.js';
import { ultraface } from '../families/ultraface.js';
import { readModelDescription } from '../model-description.js';
import { ModelRefused } from '../model-refused.js';
import { type FileDetector, type InferenceSettings, modelNameOf } from '../model-repository.js';
import { toImageDetections } from '../postprocess.js';
import type { Detection, PostprocessOptions, PreprocessedInput, RawOutput } from '../types.js';
import { OnnxSessionPool, sharedTensor } from './onnx-session-pool.js';

/**
 * Loads an UltraFace ONNX face detector (families/ultraface.ts): the same session pool and
 * configuration file as the COCO detectors (`threads`, `concurrency`; `nmsIou` defaults to the
 * family's 0.3, not the server's object setting), but its input is the model's fixed, not square,
 * size with the whole image stretched over it. Every reason not to serve it throws ModelRefused.
 */
export async function loadOnnxFaceDetector(modelPath: string, defaults: InferenceSettings): Promise<FileDetector> {
  let pool: OnnxSessionPool | undefined;
  try {
    const description = await readModelDescription(modelPath);
    const settings: InferenceSettings = {
      threads: description.threads ?? defaults.threads,
      concurrency: description.concurrency ?? defaults.concurrency,
      nmsIou: description.nmsIou ?? ultraface.nmsIou,
    };
    const opened = await OnnxSessionPool.open(modelPath, settings);
    pool = opened;
    const [, channels, height, width] = opened.signature.inputShape;
    if (channels !== 3 || typeof width !== 'number' || typeof height !== 'number') {
      throw new Error(`an UltraFace model needs a fixed [1, 3, height, width] input, this one is [${opened.signature.inputShape.join(', ')}]`);
    }
    const spec = ultraface.input(width, height);
    const dims = [1, 3, height, width];
    const buffers = Array.from({ length: settings.concurrency + 1 }, () => sharedTensor(3 * width * height));
    await opened.warmUp(buffers[0], dims);

    const preprocess = (image: RgbImage, buffer: number): PreprocessedInput => {
      const { scaleX, scaleY } = stretchInto(image, spec, buffers[buffer]);
      return { buffer, image, transform: { scaleX, scaleY, padLeft: 0, padTop: 0 } };
    };
    const inference = (input: PreprocessedInput, alone: boolean): Promise<RawOutput> => opened.run(buffers[input.buffer], dims, alone);
    const postprocess = (output: RawOutput, input: PreprocessedInput, options: PostprocessOptions): Detection[] =>
      toImageDetections(ultraface.readCandidates(output, width, height, options.minScore), input.transform, input.image, { ...options, nmsIou: settings.nmsIou });

    return {
      name: modelNameOf(modelPath),
      kind: 'faces',
      family: ultraface.name,
      runtime: 'onnxruntime-node',
      // The sessions name no execution provider (onnx-session-options.ts): ONNX Runtime's default, the CPU's.
      device: 'CPU',
      aliases: description.aliases ?? [],
      labels: ['face'],
      parents: ['person'],
      inputSize: { width, height },
      capacity: { inputs: buffers.length, runs: settings.concurrency },
      preprocess,
      inference,
      postprocess,
      dispose: () => opened.close(),
      settings,
      labelSource: 'family',
    };
  } catch (error) {
    await pool?.close();
    throw new ModelRefused(modelPath, (error as Error).message);
  }
}
