import { EMBEDDED_FACE_MODEL_PATH, EMBEDDED_MODEL_FILE } from './embedded-model.js';
import { ModelRefused } from './model-refused.js';
import { catalogueModel } from './model-catalogue.js';
import { type FileDetector, findModelFiles, type InferenceSettings, type LoadedModel, type ModelFile, ModelSettingsError, type ModelSources, type ModelsFolder } from './model-repository.js';
import { ModelRegistry, OBJECT_DETECTOR, type ReservedModelNames } from './registry.js';
import { RUNTIMES } from './runtimes/index.js';
import { loadFaceDescriptorNet, loadFaceLandmarkNet } from './face-describer.js';
import { familyNamed } from './families/index.js';
import { type ModelDescription, readModelDescription } from './model-description.js';
import { MODEL_KINDS } from './model-roles.js';
import { type ModelStep, serves } from './model-step.js';
import type { RoleModel } from './role-models.js';
import { isDetector, type ServedModel } from './types.js';

/** The step of the default object detector: every server serves one (ModelRegistry). */
const OBJECTS = OBJECT_DETECTOR;

/** Where the embedded object model comes from: its file, as DETECTD_MODEL would name it. */
export const EMBEDDED_MODEL_SOURCES: ModelSources = { modelPaths: [EMBEDDED_MODEL_FILE], modelsDir: undefined };

/** A model file of the checkout (embedded-model.ts), loaded by its runtime like any configured model file; a refusal throws. */
async function loadEmbeddedFile(file: string, defaults: InferenceSettings, logger: (message: string) => void): Promise<LoadedModel> {
  const [load] = await tryModelFiles({ modelPaths: [file], modelsDir: undefined }, defaults, true, logger);
  if ('refused' in load) throw load.refused;
  return load.model;
}

/** An embedded detector file, loaded; a refusal, or a model of another role, throws. */
async function loadEmbeddedModel(file: string, defaults: InferenceSettings, logger: (message: string) => void): Promise<FileDetector> {
  const model = await loadEmbeddedFile(file, defaults, logger);
  if (!isDetector(model)) throw new ModelRefused(file, 'it is not a detector');
  return model;
}

/** The object detector that arrives with the checkout: YOLOX-nano; serves objects when no object model is configured. */
export const loadEmbeddedDetector = (defaults: InferenceSettings, logger: (message: string) => void) => loadEmbeddedModel(EMBEDDED_MODEL_FILE, defaults, logger);

/** The zero-configuration face detector: YuNet-n; serves faces when no face model is configured. */
export const loadEmbeddedFaceDetector = (defaults: InferenceSettings, logger: (message: string) => void) => loadEmbeddedModel(EMBEDDED_FACE_MODEL_PATH, defaults, logger);

/** Outcome of loading one model file: the model, or why it is refused. */
export type ModelLoad = { readonly path: string; readonly model: LoadedModel } | { readonly path: string; readonly refused: ModelRefused };

/** Whether a model file may be an object detector: its configuration declares no other role or kind (an unreadable one is the loader's to refuse). */
async function mayFindObjects(modelPath: string): Promise<boolean> {
  const description = await readModelDescription(modelPath).catch(() => ({}) as ModelDescription);
  const entry = description.family === undefined ? undefined : familyNamed(description.family);
  return (description.role ?? entry?.role ?? OBJECTS.role) === OBJECTS.role && (description.kind ?? entry?.kind ?? OBJECTS.kind) === OBJECTS.kind;
}

/**
 * The model files the sources name, each with the runtime (of runtimes/index.ts) that loads it,
 * DETECTD_DEFAULT_MODEL's first; a DETECTD_DEFAULT_MODEL that names none is refused, naming the
 * object models it may name.
 */
export async function modelFiles(sources: ModelSources): Promise<ModelFile[]> {
  const files = await findModelFiles(sources, RUNTIMES);
  if (sources.defaultModel === undefined || files[0]?.name === sources.defaultModel) return files;
  const objectModels: string[] = [];
  for (const file of files) if (await mayFindObjects(file.path)) objectModels.push(file.name);
  throw new ModelSettingsError(
    files.length === 0
      ? `DETECTD_DEFAULT_MODEL is "${sources.defaultModel}", but no model file is configured (DETECTD_MODEL, DETECTD_MODELS_DIR)`
      : `DETECTD_DEFAULT_MODEL is "${sources.defaultModel}", which is none of the configured object models: ${objectModels.join(', ') || 'none'}`,
  );
}

/**
 * Loads every model file of the sources one by one, each to a model or a refusal, so that an
 * operator sees every problem at once (`detectd models list`). `keep` false disposes each after
 * loading; a kept model tells `logger` when it restarts an inference worker.
 */
export async function tryModelFiles(sources: ModelSources, defaults: InferenceSettings, keep: boolean, logger: (message: string) => void = () => {}): Promise<ModelLoad[]> {
  const loads: ModelLoad[] = [];
  for (const file of await modelFiles(sources)) {
    try {
      const model = await file.runtime.load(file.path, defaults, logger);
      if (!keep) await model.dispose();
      loads.push({ path: file.path, model });
    } catch (error) {
      if (!(error instanceof ModelRefused)) throw error;
      loads.push({ path: file.path, refused: error });
    }
  }
  return loads;
}

/** The start-up log's word on the embedded object model: what it is, and how to get a more accurate one. */
function embeddedModelHint(embedded: ServedModel, folder: ModelsFolder | undefined): string {
  const measured = catalogueModel(embedded.name);
  const figures = measured ? ` — ${measured.accuracy}, ${measured.speed} per image on the reference machine` : '';
  const into = folder ? ` into ${folder.path}, where the server finds them` : '';
  return (
    `No object model is configured (DETECTD_MODEL, or a model file in the models folder): serving the embedded ${embedded.name}${figures}. ` +
    `For more accuracy, \`npx detectd models pull --list\` lists the models it downloads${into} and what each measured; see docs/models.md.`
  );
}

/** A model that arrives with the checkout (or its npm packages), served for a step no configured model serves. */
interface BuiltInModel {
  readonly step: ModelStep;
  load(defaults: InferenceSettings, logger: (message: string) => void): Promise<RoleModel>;
  /** Whether the models loaded so far want it (an optional step's model); absent: whenever a task composes its step. */
  wanted?(models: readonly ServedModel[]): boolean;
  /** The start-up log's line on serving it, where an operator may want another. */
  hint?(model: ServedModel, folder: ModelsFolder | undefined): string;
  /**
   * Only a model DETECTD_MODEL names takes its place, as its step's default: one in the models folder, where
   * `detectd models pull` puts models, is served beside it to the services that name it.
   */
  readonly keptBesideFolder?: true;
}



/** The built-in model of each step that has one: a table, one line per model. */
const BUILT_IN: readonly BuiltInModel[] = [
  { step: OBJECTS, load: loadEmbeddedDetector, hint: embeddedModelHint },
  {
    step: { role: 'detector', kind: MODEL_KINDS.faces },
    load: loadEmbeddedFaceDetector,
    hint: () => 'No face model is named in DETECTD_MODEL: serving the embedded YuNet-n for faces; docs/faces.md compares it with the other face models.',
    keptBesideFolder: true,
  },
  { step: { role: 'describer', kind: MODEL_KINDS.faceDescriptors }, load: (_defaults, logger) => loadFaceDescriptorNet(logger) },
  {
    step: { role: 'landmarker', kind: MODEL_KINDS.faceLandmarks },
    load: (_defaults, logger) => loadFaceLandmarkNet(logger),
    // Only a face detector that gives no landmarks (UltraFace) needs it.
    wanted: (models) => models.some((model) => isDetector(model) && model.kind === MODEL_KINDS.faces && !model.givesLandmarks),
  },
];

/**
 * The built-in models of a server whose tasks compose `steps`: the table's, and the files the steps
 * bring (ModelStep.builtIn) for a step the table has none for, the first task's — in the order they
 * load and are listed: the detectors, then the steps' own models, then the table's others.
 */
function builtInsFor(steps: readonly ModelStep[]): BuiltInModel[] {
  const brought: BuiltInModel[] = [];
  for (const step of steps) {
    const file = step.builtIn;
    if (file === undefined || [...BUILT_IN, ...brought].some((builtIn) => serves(builtIn.step, step))) continue;
    brought.push({ step, load: (defaults, logger) => loadEmbeddedFile(file, defaults, logger) });
  }
  const detector = (builtIn: BuiltInModel) => builtIn.step.role === 'detector';
  return [...BUILT_IN.filter(detector), ...brought, ...BUILT_IN.filter((builtIn) => !detector(builtIn))];
}

/** Whether `model` (of `path`) takes the place of `builtIn`: it serves the same step, and DETECTD_MODEL names it where the built-in one is kept beside the models folder's. */
function takesPlaceOf(builtIn: BuiltInModel, model: ServedModel, path: string, sources: ModelSources): boolean {
  return serves(model, builtIn.step) && (!builtIn.keptBesideFolder || sources.modelPaths.includes(path));
}

/** The built-in detector of faces: served beside configured models unless DETECTD_MODEL names a face model. */
const FACES_BUILT_IN = BUILT_IN.find((builtIn) => builtIn.keptBesideFolder)!;

/**
 * The loaded models of `loads` with the embedded detectors a server with `sources` adds, in the server's order, each
 * step's default first among its kind (`detectd models list`); the embedded ones are `embedded`.
 */
export async function withEmbeddedDetectors(sources: ModelSources, loads: readonly ModelLoad[], defaults: InferenceSettings): Promise<{ loads: ModelLoad[]; embedded: ReadonlySet<ModelLoad> }> {
  const listed = [...loads];
  const embedded = new Set<ModelLoad>();
  for (const builtIn of BUILT_IN.filter((candidate) => candidate.step.role === 'detector')) {
    if (loads.some((load) => 'model' in load && takesPlaceOf(builtIn, load.model, load.path, sources))) continue;
    const [load] = await tryModelFiles({ modelPaths: [builtIn === FACES_BUILT_IN ? EMBEDDED_FACE_MODEL_PATH : EMBEDDED_MODEL_FILE], modelsDir: undefined }, defaults, false);
    embedded.add(load);
    insertFirstOfStep(listed, load, (other) => 'model' in other && other.model.role === builtIn.step.role && other.model.kind === builtIn.step.kind, builtIn.step === OBJECTS);
  }
  return { loads: listed, embedded };
}

/** Puts `item` before the first of `items` serving its step (`sameStep`), or first of all, or last when there is none. */
function insertFirstOfStep<Item>(items: Item[], item: Item, sameStep: (other: Item) => boolean, first: boolean): void {
  const at = first ? 0 : items.findIndex(sameStep);
  items.splice(at < 0 ? items.length : at, 0, item);
}

/**
 * Loads each configured model (DETECTD_MODEL, then the models folder), then, for each step the
 * tasks compose (`steps`, Task.models) and the default object detector, the built-in model (the
 * table's, or the one the step brings) when no configured model serves that step. Like Triton's default (`--exit-on-error`), one
 * refused model stops start-up (a server silently missing a model would answer its services
 * 503), and so does an alias that is another model's name, or a `reserved` name (ModelRegistry).
 * DETECTD_DEFAULT_MODEL must name an object detector.
 */
export async function loadModels(
  sources: ModelSources,
  defaults: InferenceSettings,
  logger: (message: string) => void,
  reserved: ReservedModelNames,
  steps: readonly ModelStep[] = [],
): Promise<ModelRegistry> {
  const loads = await tryModelFiles(sources, defaults, true, logger);
  const models: RoleModel[] = loads.flatMap((load) => ('model' in load ? [load.model] : []));
  const refused = loads.flatMap((load) => ('refused' in load ? [load.refused.message] : []));
  const embedded = new Set<ServedModel>();
  const pathOf = new Map<ServedModel, string>(loads.flatMap((load) => ('model' in load ? [[load.model, load.path] as const] : [])));
  const displaced = (builtIn: BuiltInModel) => models.some((model) => pathOf.has(model) && takesPlaceOf(builtIn, model, pathOf.get(model)!, sources));
  try {
    if (refused.length > 0) throw new ModelSettingsError(refused.join('\n'));
    const chosen = models.find((model) => model.name === sources.defaultModel);
    if (chosen && !(chosen.role === OBJECTS.role && chosen.kind === OBJECTS.kind)) {
      throw new ModelSettingsError(`DETECTD_DEFAULT_MODEL is "${chosen.name}", a ${chosen.role} of ${chosen.kind}: it names the default object model`);
    }
    const composed = (builtIn: BuiltInModel) => builtIn.step === OBJECTS || steps.some((step) => step.role === builtIn.step.role && step.kind === builtIn.step.kind);
    const builtIns = builtInsFor(steps);
    // The detectors first: whether a landmarker is wanted depends on the face detector.
    for (const wave of [builtIns.filter((builtIn) => builtIn.step.role === 'detector'), builtIns.filter((builtIn) => builtIn.step.role !== 'detector')]) {
      const needed = wave.filter((builtIn) => composed(builtIn) && !displaced(builtIn) && (builtIn.wanted?.(models) ?? true));
      // Side by side: each loads and warms up in worker threads of its own.
      const loaded = await Promise.allSettled(needed.map((builtIn) => builtIn.load(defaults, logger)));
      for (const [index, outcome] of loaded.entries()) {
        if (outcome.status === 'rejected') continue;
        const builtIn = needed[index];
        // The default object detector comes first; the default face detector before the models folder's.
        insertFirstOfStep(models, outcome.value, (model) => serves(model, builtIn.step), builtIn.step === OBJECTS);
        embedded.add(outcome.value);
        if (builtIn.hint) logger(builtIn.hint(outcome.value, sources.modelsDir));
      }
      const failed = loaded.find((outcome) => outcome.status === 'rejected');
      if (failed) throw failed.reason;
    }
    return new ModelRegistry(models, reserved, embedded);
  } catch (error) {
    await Promise.all(models.map((model) => model.dispose()));
    throw error;
  }
}
