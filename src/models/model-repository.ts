import fs from 'node:fs/promises';
import path from 'node:path';

/** Where the server's models come from (README "Model repository"). */
export interface ModelSources {
  /** DETECTD_MODEL: model files named one by one; the first is the default model. */
  readonly modelPaths: readonly string[];
  /** DETECTD_MODELS_DIR: a folder whose every `*.onnx` file is a model, with an optional `<name>.json` beside it. */
  readonly modelsDir: string | undefined;
}

export interface ModelFile {
  /** The file name without its extension: what services and `--model` name it by. */
  readonly name: string;
  readonly path: string;
}

const MODEL_EXTENSION = '.onnx';

export const modelNameOf = (modelPath: string) => path.basename(modelPath, path.extname(modelPath));

/**
 * The model files to serve, default first: DETECTD_MODEL's in the order given, then the
 * repository folder's by name (a file named in both counts once). Only reads the folder; an
 * empty result means the embedded model serves. Throws on a missing folder or two models of one name.
 */
export async function findModelFiles(sources: ModelSources): Promise<ModelFile[]> {
  const paths = [...sources.modelPaths];
  for (const modelPath of paths) {
    if (path.extname(modelPath).toLowerCase() !== MODEL_EXTENSION) throw new Error(`${modelPath}: expected an ${MODEL_EXTENSION} model file`);
  }
  if (sources.modelsDir !== undefined) {
    let entries;
    try {
      entries = await fs.readdir(sources.modelsDir, { withFileTypes: true });
    } catch (error) {
      throw new Error(`DETECTD_MODELS_DIR ${sources.modelsDir} cannot be read: ${(error as Error).message}`);
    }
    const found = entries
      .filter((entry) => !entry.isDirectory() && path.extname(entry.name).toLowerCase() === MODEL_EXTENSION)
      .map((entry) => path.join(sources.modelsDir!, entry.name))
      .sort();
    if (found.length === 0 && paths.length === 0) throw new Error(`DETECTD_MODELS_DIR ${sources.modelsDir} holds no ${MODEL_EXTENSION} model file`);
    paths.push(...found.filter((file) => !paths.includes(file)));
  }
  const files = paths.map((file) => ({ name: modelNameOf(file), path: file }));
  const byName = new Map<string, string>();
  for (const file of files) {
    const other = byName.get(file.name);
    if (other !== undefined) throw new Error(`two models are named "${file.name}": ${other} and ${file.path}; rename one`);
    byName.set(file.name, file.path);
  }
  return files;
}
