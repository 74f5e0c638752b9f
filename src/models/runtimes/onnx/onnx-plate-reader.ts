import type { CropsSpec } from '../../../vision/crops.js';
import { readPlateOutputs, readPlateReaderConfig } from '../../families/plates/plate-reader.js';
import type { InferenceSettings } from '../../model-repository.js';
import type { PlateReader } from '../../plates.js';
import type { OnnxFamilyLoader } from './onnx-served-model.js';

/**
 * A plate reader of fast-plate-ocr's kind (families/plates/plate-reader.ts) with its configuration beside
 * it: the sessions stretch each plate region of the image they are sent into one uint8 batch
 * (vision/crops.ts) and run it. Runs beside each other go to the idlest worker.
 */
export const plateReaderLoader: OnnxFamilyLoader<void, PlateReader & { readonly settings: InferenceSettings }> = {
  async load({ modelPath, opened, served }) {
    const config = await readPlateReaderConfig(modelPath);
    const [, height, width, channels] = opened.signature.inputShape;
    if (height !== config.height || width !== config.width || channels !== 3) {
      throw new Error(`its input is [${opened.signature.inputShape.join(', ')}], its configuration says [N, ${config.height}, ${config.width}, 3]`);
    }
    const layoutOf = (crops: CropsSpec['crops']): CropsSpec => ({ crops, width: config.width, height: config.height });
    const warmUp = await opened.warmUp(layoutOf([{ left: 0, top: 0, right: 64, bottom: 32 }]), [1, config.height, config.width, 3]);
    readPlateOutputs(warmUp, 1, config);
    return {
      ...served,
      role: 'reader',
      inputSize: { width: config.width, height: config.height },
      regions: config.regions !== undefined && warmUp.tensors.some((tensor) => tensor.name === 'region'),
      async read(image, regions) {
        if (regions.length === 0) return { readings: [], timings: { preprocess: 0, inference: 0, postprocess: 0 } };
        const started = performance.now();
        const output = await opened.run(image, layoutOf(regions), [regions.length, config.height, config.width, 3], false);
        const ran = performance.now();
        const readings = readPlateOutputs(output, regions.length, config);
        const preprocess = output.preprocessMs ?? 0;
        return { readings, timings: { preprocess, inference: ran - started - preprocess, postprocess: performance.now() - ran } };
      },
    };
  },
};
