import { FALLBACK_FAMILY, FAMILIES, familyNamed, familyRecognising } from '../../families/index.js';
import type { AnyFamily } from '../../families/family.js';
import { type ModelDescription, readModelDescription, settingsOf } from '../../model-description.js';
import { type FileDetector, type InferenceSettings, type LoadedModel, modelNameOf, type Runtime } from '../../model-repository.js';
import { ModelRefused } from '../../model-refused.js';
import { isDetector } from '../../types.js';
import { readOnnxFile } from './onnx-file.js';
import { loadOrRefuse, type ServedFields } from './onnx-served-model.js';
import { EXECUTION_DEVICE } from './onnx-session-options.js';
import { OnnxSessionPool } from './onnx-session-pool.js';

/**
 * The family the model's configuration names, else the first whose declared outputs it recognises
 * (a face detector's output names, an embedder's `embedding`), else the fallback: a COCO detector,
 * whose output shape tells its reader.
 */
async function familyOf(modelPath: string, description: ModelDescription): Promise<AnyFamily> {
  if (description.family === undefined) return familyRecognising((await readOnnxFile(modelPath)).outputs) ?? FALLBACK_FAMILY;
  const family = familyNamed(description.family);
  if (!family) throw new Error(`unknown model family "${description.family}" (known: ${FAMILIES.map((known) => known.name).join(', ')})`);
  return family;
}

/**
 * Loads an ONNX model of any family and role, the one way: its configuration file (checked
 * against schemas/model-description.json) → its family (families/index.ts), which decides its role
 * → what refuses it before its sessions open (the family's `inspect`) → its inference settings
 * (the configuration's, else `defaults` as the family takes them) → its sessions in worker threads
 * (onnx-session-pool.ts) → its family's loader, which warms every session up and builds its typed run.
 * It holds `concurrency + 1` inputs and `concurrency` runs at once; who goes when is its
 * scheduler's decision. Every reason not to serve the model throws ModelRefused. An inference
 * worker that stops is restarted (told to `logger`). `known`: what the caller knows the model to be
 * (a tool loading a plate reader by path, an embedder at another input size) where its configuration file says nothing.
 */
export async function loadOnnxModel(modelPath: string, defaults: InferenceSettings, logger: (message: string) => void = () => {}, known: ModelDescription = {}): Promise<LoadedModel> {
  return loadOrRefuse(modelPath, async (keep) => {
    const description = { ...known, ...(await readModelDescription(modelPath)) };
    const family = await familyOf(modelPath, description);
    if (description.role !== undefined && description.role !== family.role) {
      throw new Error(
        description.family === undefined
          ? `its configuration says role "${description.role}" and names no family: name the family that reads its outputs`
          : `its configuration says role "${description.role}", but family "${family.name}" reads a model of role "${family.role}"`,
      );
    }
    await family.inspect?.(modelPath);
    const settings = settingsOf(description, family.defaults?.(defaults) ?? defaults);
    const opened = keep(await OnnxSessionPool.open(modelPath, { ...settings, freeInputSize: family.freeInputSize }, logger));
    const served: ServedFields = {
      name: modelNameOf(modelPath),
      role: family.role,
      // What it finds is its configuration's word, else its family's.
      kind: description.kind ?? family.kind,
      family: family.name,
      runtime: 'onnxruntime-node',
      device: EXECUTION_DEVICE,
      aliases: description.aliases ?? [],
      capacity: { inputs: settings.concurrency + 1, runs: settings.concurrency },
      dispose: () => opened.close(),
      settings,
    };
    return family.load({ modelPath, description, settings, opened, served });
  });
}

/** An ONNX model file that must be a detector (the tests' and tools' way to one); any other role is refused. */
export async function loadOnnxDetector(modelPath: string, defaults: InferenceSettings, logger?: (message: string) => void): Promise<FileDetector> {
  const model = await loadOnnxModel(modelPath, defaults, logger);
  if (isDetector(model)) return model;
  await model.dispose();
  throw new ModelRefused(modelPath, `it is a ${model.role}, not a detector`);
}

/** ONNX Runtime, as the model repository's runtime table lists it: every family's model through loadOnnxModel. */
export const onnxRuntime: Runtime = {
  name: 'onnxruntime',
  extensions: ['.onnx'],
  device: EXECUTION_DEVICE,
  load: loadOnnxModel,
};
