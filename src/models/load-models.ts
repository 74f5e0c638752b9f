import { EMBEDDED_FACE_MODEL_PATH, EMBEDDED_MODEL_FILE } from './embedded-model.js';
import { ModelRefused } from './model-refused.js';
import { catalogueModel } from './model-catalogue.js';
import { type FileDetector, findModelFiles, type InferenceSettings, type LoadedModel, type ModelFile, ModelSettingsError, type ModelSources, type ModelsFolder } from './model-repository.js';
import { ModelRegistry, type ReservedModelNames } from './registry.js';
import { RUNTIMES } from './runtimes/index.js';
import type { Detector } from './types.js';

/** Where the embedded object model comes from: its file, as DETECTD_MODEL would name it. */
export const EMBEDDED_MODEL_SOURCES: ModelSources = { modelPaths: [EMBEDDED_MODEL_FILE], modelsDir: undefined };

/** A model file of the checkout (embedded-model.ts), loaded by its runtime like any configured model file; a refusal throws. */
async function loadEmbeddedModel(file: string, defaults: InferenceSettings, logger: (message: string) => void): Promise<FileDetector> {
  const [load] = await tryModelFiles({ modelPaths: [file], modelsDir: undefined }, defaults, true, logger);
  if ('refused' in load) throw load.refused;
  if (!('detector' in load)) throw new ModelRefused(file, 'it is not a detector');
  return load.detector;
}

/** The object detector that arrives with the checkout: YOLOX-nano; serves objects when no object model is configured. */
export const loadEmbeddedDetector = (defaults: InferenceSettings, logger: (message: string) => void) => loadEmbeddedModel(EMBEDDED_MODEL_FILE, defaults, logger);

/** The zero-configuration face detector: YuNet-n; serves faces when no face model is configured. */
export const loadEmbeddedFaceDetector = (defaults: InferenceSettings, logger: (message: string) => void) => loadEmbeddedModel(EMBEDDED_FACE_MODEL_PATH, defaults, logger);

/** Outcome of loading one model file: the detector or companion model, or why it is refused. */
export type ModelLoad = ({ readonly path: string } & LoadedModel) | { readonly path: string; readonly refused: ModelRefused };

/** The model files the sources name, each with the runtime (of runtimes/index.ts) that loads it. */
export function modelFiles(sources: ModelSources): Promise<ModelFile[]> {
  return findModelFiles(sources, RUNTIMES);
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
      const loaded = await file.runtime.load(file.path, defaults, logger);
      if (!keep) await ('detector' in loaded ? loaded.detector : loaded.companion).dispose();
      loads.push({ path: file.path, ...loaded });
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

/** The start-up log's word on the embedded object model: what it is, and how to get a more accurate one. */
function embeddedModelHint(embedded: Detector, folder: ModelsFolder | undefined): string {
  const measured = catalogueModel(embedded.name);
  const figures = measured ? ` — ${measured.accuracy}, ${measured.speed} per image on the reference machine` : '';
  const into = folder ? ` into ${folder.path}, where the server finds them` : '';
  return (
    `No object model is configured (DETECTD_MODEL, or a model file in the models folder): serving the embedded ${embedded.name}${figures}. ` +
    `For more accuracy, \`npx detectd models pull --list\` lists the models it downloads${into} and what each measured; see docs/models.md.`
  );
}

/**
 * Loads each configured model (DETECTD_MODEL, then the models folder), the embedded detector
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
  const companions = loads.flatMap((load) => ('companion' in load ? [load.companion] : []));
  const refused = loads.flatMap((load) => ('refused' in load ? [load.refused.message] : []));
  const embedded = new Set<Detector>();
  try {
    if (refused.length > 0) throw new ModelSettingsError(refused.join('\n'));
    if (!detectors.some((detector) => detector.kind === 'objects')) {
      const detector = await loadEmbeddedDetector(defaults, logger);
      detectors.unshift(detector);
      embedded.add(detector);
      logger(embeddedModelHint(detector, sources.modelsDir));
    }
    if (needs.faces && !detectors.some((detector) => detector.kind === 'faces')) {
      logger('No face model is configured: serving the embedded YuNet-n for faces; docs/faces.md compares it with the other face models.');
      const detector = await loadEmbeddedFaceDetector(defaults, logger);
      detectors.push(detector);
      embedded.add(detector);
    }
    return new ModelRegistry(detectors, reserved, embedded, companions);
  } catch (error) {
    await Promise.all([...detectors, ...companions].map((model) => model.dispose()));
    throw error;
  }
}
