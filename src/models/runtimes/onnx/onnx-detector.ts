import { type FamilyEntry, faceFamilyForOutputs, FAMILIES, familyNamed } from '../../families/index.js';
import { type ModelDescription, readModelDescription, settingsOf } from '../../model-description.js';
import { type FileDetector, type InferenceSettings, type LoadedModel, modelNameOf, type Runtime } from '../../model-repository.js';
import { MODEL_KINDS } from '../../model-roles.js';
import { ModelRefused } from '../../model-refused.js';
import { isDetector } from '../../types.js';
import { faceDetectorLoader } from './onnx-face-detector.js';
import { readOnnxFile } from './onnx-file.js';
import { objectDetectorLoader } from './onnx-object-detector.js';
import { plateDetectorLoader } from './onnx-plate-detector.js';
import { plateReaderLoader } from './onnx-plate-reader.js';
import { type FamilyOf, loadOrRefuse, type OnnxFamilyLoader, type ServedFields } from './onnx-served-model.js';
import { EXECUTION_DEVICE } from './onnx-session-options.js';
import { OnnxSessionPool } from './onnx-session-pool.js';

/** The loader of each kind of family output: a table, one line per kind (families/index.ts FamilyEntry `reads`). */
const LOADERS: { readonly [Reads in FamilyEntry['reads']]: OnnxFamilyLoader<FamilyOf<Reads>> } = {
  boxes: objectDetectorLoader,
  'plate-boxes': plateDetectorLoader,
  'face-boxes': faceDetectorLoader,
  text: plateReaderLoader,
};

/**
 * The family the model's configuration names, else the face family whose outputs it declares;
 * undefined for a model that declares neither: a COCO detector, whose output shape tells its family.
 */
async function familyOf(modelPath: string, description: ModelDescription): Promise<FamilyEntry | undefined> {
  if (description.family === undefined) {
    const face = faceFamilyForOutputs((await readOnnxFile(modelPath)).outputs);
    return face && familyNamed(face.name);
  }
  const entry = familyNamed(description.family);
  if (!entry) throw new Error(`unknown model family "${description.family}" (known: ${FAMILIES.map((known) => known.family.name).join(', ')})`);
  return entry;
}

/**
 * Loads an ONNX model of any family and role, the one way: its configuration file (checked
 * against schemas/model-description.json) → its family (families/index.ts) → what refuses it before
 * its sessions open (the family's `inspect`) → its inference settings
 * (the configuration's, else `defaults` as the family takes them) → its sessions in worker threads
 * (onnx-session-pool.ts) → its family's loader, which warms every session up and builds its stages.
 * It holds `concurrency + 1` inputs and `concurrency` runs at once; who goes when is its
 * scheduler's decision. Every reason not to serve the model throws ModelRefused. An inference
 * worker that stops is restarted (told to `logger`). `known`: what the caller knows the model to be
 * (a tool loading a plate reader by path) where its configuration file says nothing.
 */
export async function loadOnnxModel(modelPath: string, defaults: InferenceSettings, logger: (message: string) => void = () => {}, known: ModelDescription = {}): Promise<LoadedModel> {
  return loadOrRefuse(modelPath, async (keep) => {
    const description = { ...known, ...(await readModelDescription(modelPath)) };
    const entry = await familyOf(modelPath, description);
    if (entry && description.role !== undefined && description.role !== entry.role) {
      throw new Error(`its configuration says role "${description.role}", but family "${entry.family.name}" reads a model of role "${entry.role}"`);
    }
    if (!entry && description.role !== undefined && description.role !== 'detector') {
      throw new Error(`its configuration says role "${description.role}" and names no family: name the family that reads its outputs`);
    }
    const loader = LOADERS[entry?.reads ?? 'boxes'] as OnnxFamilyLoader<FamilyEntry['family'] | undefined>;
    await loader.inspect?.(modelPath);
    const settings = settingsOf(description, loader.defaults?.(defaults, entry?.family) ?? defaults);
    const opened = keep(await OnnxSessionPool.open(modelPath, settings, logger));
    const served: ServedFields = {
      name: modelNameOf(modelPath),
      role: entry?.role ?? 'detector',
      // What it finds is its configuration's word, else its family's; a COCO detector's, objects.
      kind: description.kind ?? entry?.kind ?? MODEL_KINDS.objects,
      family: entry?.family.name ?? '',
      runtime: 'onnxruntime-node',
      device: EXECUTION_DEVICE,
      aliases: description.aliases ?? [],
      capacity: { inputs: settings.concurrency + 1, runs: settings.concurrency },
      dispose: () => opened.close(),
      settings,
    };
    return loader.load({ modelPath, description, settings, opened, served }, entry?.family);
  });
}

/** An ONNX model file that must be a detector (the tests' and tools' way to one); any other role is refused. */
export async function loadOnnxDetector(modelPath: string, defaults: InferenceSettings, logger?: (message: string) => void): Promise<FileDetector> {
  const model = await loadOnnxModel(modelPath, defaults, logger);
  if (isDetector(model)) return model as FileDetector;
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
