import fs from 'node:fs/promises';
import path from 'node:path';
import type { Detector } from './types.js';

/** Where the server's models come from (README "Model repository"). */
export interface ModelSources {
  /** DETECTD_MODEL: model files named one by one; the first is the default model. */
  readonly modelPaths: readonly string[];
  /** DETECTD_MODELS_DIR: a folder whose every model file (`*.onnx`: an extension a runtime loads) is a model, with an optional `<name>.json` beside it. */
  readonly modelsDir: string | undefined;
  /** DETECTD_DEFAULT_MODEL: the name of the model that serves services naming none; else DETECTD_MODEL's first, else the folder's first by name. */
  readonly defaultModel?: string;
}

/** What a detector loaded from a file reports beyond `Detector`, for the start-up log and `detectd models list`. */
export interface FileDetector extends Detector {
  readonly settings: InferenceSettings;
  /** Where its labels came from: `configuration`, `metadata`, `coco-80`, or `family` (a face family's ['face']). */
  readonly labelSource: string;
}

/** How a runtime runs a model, unless the model's own configuration file says otherwise (README "Inference settings"). */
export interface InferenceSettings {
  /** Intra-op threads of a run that has the model to itself. */
  readonly threads: number;
  /** Runs in flight at once, each in its own session and worker thread, sharing the threads. */
  readonly concurrency: number;
  readonly nmsIou: number;
}

/**
 * A runtime that serves model files (runtimes/index.ts lists them): the file extensions it loads
 * and how. The repository takes every file one of them declares; every reason not to serve a
 * file is a ModelRefused from `load`.
 */
export interface FileRuntime {
  readonly name: string;
  /** Lower-case, with the dot: `.onnx`. */
  readonly extensions: readonly string[];
  /** `logger` hears of what the loaded detector does by itself later, such as restarting a worker. */
  load(modelPath: string, defaults: InferenceSettings, logger: (message: string) => void): Promise<FileDetector>;
}

export interface ModelFile {
  /** The file name without its extension: what services and `--model` name it by. */
  readonly name: string;
  readonly path: string;
  /** The runtime that loads it, chosen by its extension. */
  readonly runtime: FileRuntime;
}

export const modelNameOf = (modelPath: string) => path.basename(modelPath, path.extname(modelPath));

/**
 * The model files to serve, default first: DETECTD_MODEL's in the order given, then the
 * repository folder's by name (a file named in both counts once), each with the runtime of
 * `runtimes` that declares its extension. Only reads the folder; an empty result means the
 * embedded model serves. Throws on a missing folder, a file no runtime loads or two models of one name.
 */
export async function findModelFiles(sources: ModelSources, runtimes: readonly FileRuntime[]): Promise<ModelFile[]> {
  const runtimeOf = (file: string) => runtimes.find((runtime) => runtime.extensions.includes(path.extname(file).toLowerCase()));
  const extensions = runtimes.flatMap((runtime) => runtime.extensions).join(' or ');
  const paths = [...sources.modelPaths];
  for (const modelPath of paths) {
    if (!runtimeOf(modelPath)) throw new Error(`${modelPath}: expected an ${extensions} model file`);
  }
  if (sources.modelsDir !== undefined) {
    let entries;
    try {
      entries = await fs.readdir(sources.modelsDir, { withFileTypes: true });
    } catch (error) {
      throw new Error(`DETECTD_MODELS_DIR ${sources.modelsDir} cannot be read: ${(error as Error).message}`);
    }
    const found = entries
      .filter((entry) => !entry.isDirectory() && runtimeOf(entry.name) !== undefined)
      .map((entry) => path.join(sources.modelsDir!, entry.name))
      .sort();
    if (found.length === 0 && paths.length === 0) throw new Error(`DETECTD_MODELS_DIR ${sources.modelsDir} holds no ${extensions} model file`);
    paths.push(...found.filter((file) => !paths.includes(file)));
  }
  const files = paths.map((file) => ({ name: modelNameOf(file), path: file, runtime: runtimeOf(file)! }));
  const byName = new Map<string, string>();
  for (const file of files) {
    const other = byName.get(file.name);
    if (other !== undefined) throw new Error(`two models are named "${file.name}": ${other} and ${file.path}; rename one`);
    byName.set(file.name, file.path);
  }
  if (sources.defaultModel === undefined) return files;
  const chosen = files.find((file) => file.name === sources.defaultModel);
  if (!chosen) {
    throw new Error(
      files.length === 0
        ? `DETECTD_DEFAULT_MODEL is "${sources.defaultModel}", but no model file is configured (DETECTD_MODEL, DETECTD_MODELS_DIR)`
        : `DETECTD_DEFAULT_MODEL is "${sources.defaultModel}", which is none of the configured models: ${files.map((file) => file.name).join(', ')}`,
    );
  }
  return [chosen, ...files.filter((file) => file !== chosen)];
}

/** Why the default model (the first of findModelFiles) is the default, for the start-up log; `warning` when nobody chose it. */
export function defaultModelReason(sources: ModelSources, modelCount: number): { readonly reason: string; readonly warning: boolean } {
  if (sources.defaultModel !== undefined) return { reason: 'named by DETECTD_DEFAULT_MODEL', warning: false };
  if (sources.modelPaths.length > 0) return { reason: 'the first of DETECTD_MODEL', warning: false };
  if (sources.modelsDir === undefined) return { reason: 'the embedded model, as no model file is configured', warning: false };
  if (modelCount === 1) return { reason: 'the only model of DETECTD_MODELS_DIR', warning: false };
  return { reason: 'the first by name of DETECTD_MODELS_DIR, as nothing names one: set DETECTD_DEFAULT_MODEL to choose it', warning: true };
}
