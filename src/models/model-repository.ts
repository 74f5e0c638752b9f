import fs from 'node:fs/promises';
import path from 'node:path';
import { catalogueModel } from './model-catalogue.js';
import { MODEL_KINDS, type ModelKind } from './model-roles.js';
import type { ModelRegistry } from './registry.js';
import type { RoleModel } from './role-models.js';
import type { Detector } from './types.js';

/** Model settings (DETECTD_MODEL, the models folder, DETECTD_DEFAULT_MODEL) that cannot be served as they are, in words an operator can act on. */
export class ModelSettingsError extends Error {}

/** Where the server's models come from (docs/models.md "Model repository"). */
export interface ModelSources {
  /** DETECTD_MODEL: model files named one by one; the first is the default model. */
  readonly modelPaths: readonly string[];
  /** The models folder: every model file in it (`*.onnx`: an extension a runtime loads) is a model, with an optional `<name>.json` beside it. */
  readonly modelsDir: ModelsFolder | undefined;
  /** DETECTD_DEFAULT_MODEL: the name of the model that serves services naming none; else DETECTD_MODEL's first, else the folder's first by name. */
  readonly defaultModel?: string;
}

/** The models folder: DETECTD_MODELS_DIR, else the default one that `detectd models pull` fills (config.ts). */
export interface ModelsFolder {
  readonly path: string;
  /** Named by DETECTD_MODELS_DIR: it must exist and hold a model file. The default folder may be missing or empty. */
  readonly required: boolean;
}

/** What a detector loaded from a file reports beyond `Detector`, for the start-up log and `detectd models list`. */
export interface FileDetector extends Detector {
  readonly settings: InferenceSettings;
  /** Where its labels came from: `configuration`, `metadata`, `coco-80`, or `family` (a face family's ['face']). */
  readonly labelSource: string;
}

/** How a runtime runs a model, unless the model's own configuration file says otherwise (docs/configuration.md, DETECTD_INFERENCE_*). */
export interface InferenceSettings {
  /** ONNX Runtime intra-op threads of a run that has its model to itself. */
  readonly threads: number;
  /** Runs of one model at once, each in its own session and worker thread, sharing the threads. */
  readonly concurrency: number;
  /** IoU above which same-class boxes are merged by NMS. */
  readonly nmsIou: number;
}

/**
 * A runtime that serves model files, one folder under runtimes/ (runtimes/index.ts lists them):
 * the file extensions it loads, on which device, and how. The repository takes every file one of
 * them declares; every reason not to serve a file is a ModelRefused from `load`. Families
 * (families/) are runtime-neutral: a runtime runs the network, a family reads its outputs.
 */
export interface Runtime {
  readonly name: string;
  /** Lower-case, with the dot: `.onnx`. */
  readonly extensions: readonly string[];
  /** Where its runs execute: `CPU`, or the accelerator its execution provider drives (each detector's `device`). */
  readonly device: string;
  /** `logger` hears of what the loaded model does by itself later, such as restarting a worker. */
  load(modelPath: string, defaults: InferenceSettings, logger: (message: string) => void): Promise<LoadedModel>;
}

/** What a model file is once loaded, of any role (role-models.ts), with the settings it runs with. A scheduler runs each (src/scheduler/). */
export type LoadedModel = FileDetector | (Exclude<RoleModel, Detector> & { readonly settings: InferenceSettings });

export interface ModelFile {
  /** The file name without its extension: what services and `--model` name it by. */
  readonly name: string;
  readonly path: string;
  /** The runtime that loads it, chosen by its extension. */
  readonly runtime: Runtime;
}

export const modelNameOf = (modelPath: string) => path.basename(modelPath, path.extname(modelPath));

/** The model's configuration file beside it (model-description.ts reads it): `<name>.json`. */
export function sidecarPath(modelPath: string): string {
  return path.join(path.dirname(modelPath), `${modelNameOf(modelPath)}.json`);
}

/** The paths of the files (not folders) in the models folder, by name; none when the default folder does not exist. */
async function readFolder(folder: ModelsFolder): Promise<string[]> {
  let entries;
  try {
    entries = await fs.readdir(folder.path, { withFileTypes: true });
  } catch (error) {
    if (!folder.required && (error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new ModelSettingsError(`${folder.required ? 'DETECTD_MODELS_DIR' : 'the models folder'} ${folder.path} cannot be read: ${(error as Error).message}`);
  }
  return entries
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.join(folder.path, entry.name))
    .sort();
}

const exists = (file: string) => fs.access(file).then(() => true, () => false);

/** Why DETECTD_MODEL's `modelPath` cannot be served when no file is there, and how to get it. */
function missingModelFile(modelPath: string, folder: ModelsFolder | undefined): string {
  const name = modelNameOf(modelPath);
  const into = folder ? ` into ${folder.path}` : '';
  const remedy = catalogueModel(name)
    ? `\`npx detectd models pull ${name}\` downloads it${into}, where the server finds it without DETECTD_MODEL`
    : 'correct the path, or download a model with `npx detectd models pull <name>` (`npx detectd models pull --list` lists them)';
  return `DETECTD_MODEL names ${modelPath}, which does not exist: ${remedy}`;
}

/**
 * The model files to serve, default first: DETECTD_MODEL's in the order given, then the
 * repository folder's by name (a file named in both counts once), each with the runtime of
 * `runtimes` that declares its extension. Only looks at the files (none is opened); an empty result means the
 * embedded model serves. Throws ModelSettingsError on a missing file or folder, a file no runtime
 * loads or two models of one name.
 */
export async function findModelFiles(sources: ModelSources, runtimes: readonly Runtime[]): Promise<ModelFile[]> {
  const runtimeOf = (file: string) => runtimes.find((runtime) => runtime.extensions.includes(path.extname(file).toLowerCase()));
  const extensions = runtimes.flatMap((runtime) => runtime.extensions).join(' or ');
  const paths = [...sources.modelPaths];
  for (const modelPath of paths) {
    if (!runtimeOf(modelPath)) throw new ModelSettingsError(`${modelPath}: expected an ${extensions} model file`);
    if (!(await exists(modelPath))) throw new ModelSettingsError(missingModelFile(modelPath, sources.modelsDir));
  }
  if (sources.modelsDir !== undefined) {
    const folder = sources.modelsDir;
    const found = (await readFolder(folder)).filter((file) => runtimeOf(file) !== undefined);
    if (found.length === 0 && paths.length === 0 && folder.required) throw new ModelSettingsError(`DETECTD_MODELS_DIR ${folder.path} holds no ${extensions} model file`);
    paths.push(...found.filter((file) => !paths.includes(file)));
  }
  const files = paths.map((file) => ({ name: modelNameOf(file), path: file, runtime: runtimeOf(file)! }));
  const byName = new Map<string, string>();
  for (const file of files) {
    const other = byName.get(file.name);
    if (other !== undefined) throw new ModelSettingsError(`two models are named "${file.name}": ${other} and ${file.path}; rename one`);
    byName.set(file.name, file.path);
  }
  const chosen = files.find((file) => file.name === sources.defaultModel);
  // A name that is no file's is load-models.ts's to refuse, naming the object models it could be.
  return chosen ? [chosen, ...files.filter((file) => file !== chosen)] : files;
}

/** A step's default detector as its reason is told: whether it is embedded, and the names of the other detectors of its kind. */
export interface DefaultDetector {
  readonly embedded: boolean;
  readonly others: readonly string[];
}

/** Why the default object model is the default, for the start-up log and `detectd models list`; `warning` when nobody chose it. */
export function defaultModelReason(sources: ModelSources, chosen: DefaultDetector): { readonly reason: string; readonly warning: boolean } {
  if (sources.defaultModel !== undefined) return { reason: 'named by DETECTD_DEFAULT_MODEL', warning: false };
  if (chosen.embedded) return { reason: 'the embedded model, as no object model file is configured', warning: false };
  if (sources.modelPaths.length > 0) return { reason: 'the first of DETECTD_MODEL', warning: false };
  if (chosen.others.length === 0) return { reason: 'the only object model of the models folder', warning: false };
  return { reason: 'the first by name of the models folder, as nothing names one: set DETECTD_DEFAULT_MODEL to choose it', warning: true };
}

/**
 * Why the default face model answers the face services that name no model, for the start-up log and `detectd models
 * list`: a face model of the models folder (where `detectd models pull` puts them) never becomes the default.
 */
export function defaultFaceModelReason(chosen: DefaultDetector): string {
  if (!chosen.embedded) return 'the first face model DETECTD_MODEL names';
  if (chosen.others.length === 0) return 'the embedded model, as no face model file is configured';
  return `the embedded model: the models folder's ${chosen.others.join(', ')} answers only the services that name it; name a face model in DETECTD_MODEL to make it the default`;
}

/** Why the first detector of `kind` answers the services of its kind that name no model, for `detectd models list`. */
export function defaultReasonOf(kind: ModelKind, sources: ModelSources, chosen: DefaultDetector): string {
  if (kind === MODEL_KINDS.objects) return defaultModelReason(sources, chosen).reason;
  return kind === MODEL_KINDS.faces ? defaultFaceModelReason(chosen) : 'the first of its kind';
}

/** `model`, the registry's default of its kind, as its reason is told. */
export function asDefaultDetector(registry: ModelRegistry, model: Detector): DefaultDetector {
  return { embedded: registry.isEmbedded(model), others: registry.ofStep({ role: 'detector', kind: model.kind }).filter((other) => other !== model).map((other) => other.name) };
}
