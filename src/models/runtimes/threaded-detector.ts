import type { RgbImage } from '../../vision/image.js';
import { endToEnd } from '../families/end-to-end.js';
import { toImageDetections } from '../postprocess.js';
import type { PostprocessOptions, Detection, Detector, PreprocessedInput, RawOutput } from '../types.js';
import type { DetectorSummary, ThreadedDetectorSpec } from './threaded-detector-protocol.js';
import { startThreadedModel } from './threaded-model.js';

/**
 * A Detector whose model runs in a worker thread (threaded-model.ts), one image at a time. The
 * model resizes (stretches) the image itself, so `preprocess` only records the stretch; its
 * output has the end-to-end family's layout.
 */
export async function loadThreadedDetector(spec: ThreadedDetectorSpec, logger: (message: string) => void): Promise<Detector> {
  const model = await startThreadedModel<DetectorSummary>(spec, logger);
  const { width, height } = model.summary.inputSize;

  function preprocess(image: RgbImage, buffer: number): PreprocessedInput {
    return { buffer, image, transform: { scaleX: width / image.width, scaleY: height / image.height, padLeft: 0, padTop: 0 } };
  }

  function inference({ image }: PreprocessedInput): Promise<RawOutput> {
    return model.run(image);
  }

  function postprocess(output: RawOutput, input: PreprocessedInput, options: PostprocessOptions): Detection[] {
    const candidates = endToEnd.readCandidates(output.tensors[0], width, options.minScore);
    return toImageDetections(candidates, input.transform, input.image, { ...options, nmsIou: undefined });
  }

  return {
    ...model.summary,
    capacity: { inputs: 1, runs: 1 },
    preprocess,
    inference,
    postprocess,
    dispose: () => model.dispose(),
  };
}
