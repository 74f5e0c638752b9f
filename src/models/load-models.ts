import { EMBEDDED_FACE_MODEL_PATH } from './embedded-model.js';
import { ModelRefused } from './model-refused.js';
import { type FileDetector, findModelFiles, type InferenceSettings, type ModelFile, type ModelSources } from './model-repository.js';
import { ModelRegistry, type ReservedModelNames } from './registry.js';
import { FILE_RUNTIMES } from './runtimes/index.js';
import { loadThreadedDetector } from './runtimes/threaded-detector.js';
import { moduleUrl } from './runtimes/worker-thread.js';
import type { Detector } from './types.js';

/**
 * The detector that arrives with `npm ci`: CenterNet (MobileNetV3, COCO-80) from the
 * `@vladmandic/human` package, run by TF.js in a worker thread.
 */
export function loadEmbeddedDetector(logger: (message: string) => void): Promise<Detector> {
  return loadThreadedDetector({ moduleUrl: moduleUrl('./runtimes/tfjs/centernet', import.meta.url) }, logger);
}

/**
 * The zero-configuration face detector (embedded-model.ts), served by ONNX Runtime as any
 * configured model file is; serves faces when no face model is configured.
 */
export async function loadEmbeddedFaceDetector(defaults: InferenceSettings, logger: (message: string) => void): Promise<Detector> {
  const [load] = await tryModelFiles({ modelPaths: [EMBEDDED_FACE_MODEL_PATH], modelsDir: undefined }, defaults, true, logger);
  if ('refused' in load) throw load.refused;
  return load.detector;
}

/** Outcome of loading one model file: the detector, or why it is refused. */
export type ModelLoad = { readonly path: string; readonly detector: FileDetector } | { readonly path: string; readonly refused: ModelRefused };

/** The model files the sources name, each with the runtime (of runtimes/index.ts) that loads it. */
export function modelFiles(sources: ModelSources): Promise<ModelFile[]> {
  return findModelFiles(sources, FILE_RUNTIMES);
}

/**
 * Loads every model file of the sources one by one, each to a detector or a refusal, so that an
 * operator sees every problem at once (`detectd models list`). `keep` false disposes each after
 * loading; a kept detector tells `logger` when it restarts an inference worker.
 */
export async function tryModelFiles(sources: ModelSources, defaults: InferenceSettings, keep: boolean, logger: (message: string) => void = () => {}): Promise<ModelLoad[]> {
  const loads: ModelLoad[] = [];
  for (const file of await modelFiles(sources)) {
    try {
      const detector = await file.runtime.load(file.path, defaults, logger);
      if (!keep) await detector.dispose();
      loads.push({ path: file.path, detector });
    } catch (error) {
      if (!(error instanceof ModelRefused)) throw error;
      loads.push({ path: file.path, refused: error });
    }
  }
  return loads;
}

/** What `loadModels` serves beyond the configured models. */
export interface ModelNeeds {
  /** A face detector is needed (the face task is served): the embedded one when no face model is configured. */
  readonly faces: boolean;
}

/**
 * Loads each configured model (DETECTD_MODEL, then DETECTD_MODELS_DIR), the embedded detector
 * when no object model is configured, and the embedded face detector when faces are needed and no
 * face model is configured. Like Triton's default (`--exit-on-error`), one refused model stops
 * start-up (a server silently missing a model would answer its services 503), and so does an alias
 * that is another model's name, or a `reserved` name (ModelRegistry).
 */
export async function loadModels(
  sources: ModelSources,
  defaults: InferenceSettings,
  logger: (message: string) => void,
  reserved: ReservedModelNames,
  needs: ModelNeeds = { faces: false },
): Promise<ModelRegistry> {
  const loads = await tryModelFiles(sources, defaults, true, logger);
  const detectors: Detector[] = loads.flatMap((load) => ('detector' in load ? [load.detector] : []));
  const refused = loads.flatMap((load) => ('refused' in load ? [load.refused.message] : []));
  try {
    if (refused.length > 0) throw new Error(refused.join('\n'));
    if (!detectors.some((detector) => detector.kind === 'objects')) {
      logger(
        'DETECTD_MODEL is not set: serving the embedded CenterNet (TF.js, AP 32.8, ~190 ms per image here). ' +
          'An ONNX YOLO model is faster and more accurate, e.g. DETECTD_MODEL=../shared/models/yolo26n-640-int8.onnx (AP 43.6, 58 ms); see README "Models".',
      );
      detectors.unshift(await loadEmbeddedDetector(logger));
    }
    if (needs.faces && !detectors.some((detector) => detector.kind === 'faces')) {
      logger('No face model is configured: serving the embedded YuNet-n for faces; see README "Faces" for the more accurate RetinaFace.');
      detectors.push(await loadEmbeddedFaceDetector(defaults, logger));
    }
    return new ModelRegistry(detectors, reserved);
  } catch (error) {
    await Promise.all(detectors.map((detector) => detector.dispose()));
    throw error;
  }
}
