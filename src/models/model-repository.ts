import fs from 'node:fs/promises';
import path from 'node:path';
import type { Detector } from './types.js';

/** Where the server's models come from (README "Model repository"). */
export interface ModelSources {
  /** DETECTD_MODEL: model files named one by one; the first is the default model. */
  readonly modelPaths: readonly string[];
  /** DETECTD_MODELS_DIR: a folder whose every model file (`*.onnx`: an extension a runtime loads) is a model, with an optional `<name>.json` beside it. */
  readonly modelsDir: string | undefined;
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
  load(modelPath: string, defaults: InferenceSettings): Promise<FileDetector>;
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
  const extensions = runtimes.flatMap((runtime) => runtime.extensions).join(', ');
  const paths = [...sources.modelPaths];
  for (const modelPath of paths) {
    if (!runtimeOf(modelPath)) throw new Error(`${modelPath}: expected a model file (${extensions})`);
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
    if (found.length === 0 && paths.length === 0) throw new Error(`DETECTD_MODELS_DIR ${sources.modelsDir} holds no model file (${extensions})`);
    paths.push(...found.filter((file) => !paths.includes(file)));
  }
  const files = paths.map((file) => ({ name: modelNameOf(file), path: file, runtime: runtimeOf(file)! }));
  const byName = new Map<string, string>();
  for (const file of files) {
    const other = byName.get(file.name);
    if (other !== undefined) throw new Error(`two models are named "${file.name}": ${other} and ${file.path}; rename one`);
    byName.set(file.name, file.path);
  }
  return files;
}
