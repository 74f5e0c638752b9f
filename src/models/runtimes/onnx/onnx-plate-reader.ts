import type { CropsSpec } from '../../../vision/crops.js';
import { PLATE_READER_FAMILY, readPlateOutputs, readPlateReaderConfig } from '../../families/plate-reader.js';
import { readModelDescription, settingsOf } from '../../model-description.js';
import { type InferenceSettings, modelNameOf } from '../../model-repository.js';
import type { PlateReader } from '../../plates.js';
import { OnnxSessionPool } from './onnx-session-pool.js';
import { loadOrRefuse } from './onnx-served-model.js';

/**
 * Loads an ONNX plate reader of fast-plate-ocr's kind (families/plate-reader.ts) with its
 * configuration beside it: sessions in worker threads, which stretch each plate region of the
 * image they are sent into one uint8 batch (vision/crops.ts) and run it. Runs beside each other go
 * to the idlest worker. Every reason not to serve it throws ModelRefused.
 */
export async function loadOnnxPlateReader(modelPath: string, defaults: InferenceSettings, logger: (message: string) => void): Promise<PlateReader> {
  return loadOrRefuse(modelPath, async (keep) => {
    const config = await readPlateReaderConfig(modelPath);
    const description = await readModelDescription(modelPath);
    const settings = settingsOf(description, defaults);
    const opened = keep(await OnnxSessionPool.open(modelPath, settings, logger));
    const [, height, width, channels] = opened.signature.inputShape;
    if (height !== config.height || width !== config.width || channels !== 3) {
      throw new Error(`its input is [${opened.signature.inputShape.join(', ')}], its configuration says [N, ${config.height}, ${config.width}, 3]`);
    }
    const layoutOf = (crops: CropsSpec['crops']): CropsSpec => ({ crops, width: config.width, height: config.height });
    const warmUp = await opened.warmUp(layoutOf([{ left: 0, top: 0, right: 64, bottom: 32 }]), [1, config.height, config.width, 3]);
    readPlateOutputs(warmUp, 1, config);
    return {
      name: modelNameOf(modelPath),
      // What it reads is its configuration's word, `plate-text` unless it says otherwise.
      kind: description.kind ?? 'plate-text',
      family: PLATE_READER_FAMILY,
      runtime: 'onnxruntime-node',
      // The sessions name no execution provider (onnx-session-options.ts): ONNX Runtime's default, the CPU's.
      device: 'CPU',
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
      dispose: () => opened.close(),
    };
  });
}
