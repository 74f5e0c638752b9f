import path from 'node:path';
import { loadOnnxDetector, type OnnxDetectorSettings } from './onnx-detector.js';
import type { Detector } from './types.js';

/** The detectors this process serves, by name; the first configured one is the default. */
export class ModelRegistry {
  readonly #byName: ReadonlyMap<string, Detector>;
  readonly defaultModel: Detector;

  constructor(detectors: readonly Detector[]) {
    if (detectors.length === 0) throw new Error('no detector loaded');
    this.#byName = new Map(detectors.map((detector) => [detector.name, detector]));
    if (this.#byName.size !== detectors.length) throw new Error('two configured models share a name');
    this.defaultModel = detectors[0];
  }

  get names(): string[] {
    return [...this.#byName.keys()];
  }

  /** The named detector, or the default one when the name is absent or no longer loaded. */
  resolve(name: string | null | undefined): Detector {
    return (name ? this.#byName.get(name) : undefined) ?? this.defaultModel;
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.#byName.values()].map((detector) => detector.dispose()));
  }
}

/** Loads each configured model file with the runtime its extension calls for. */
export async function loadModels(modelPaths: readonly string[], settings: OnnxDetectorSettings): Promise<ModelRegistry> {
  if (modelPaths.length === 0) throw new Error('DETECTD_MODEL is not set: name an ONNX model file, e.g. ../shared/models/yolo26n-640-int8.onnx');
  const detectors: Detector[] = [];
  for (const modelPath of modelPaths) {
    if (path.extname(modelPath).toLowerCase() !== '.onnx') throw new Error(`${modelPath}: expected an .onnx model file`);
    detectors.push(await loadOnnxDetector(modelPath, settings));
  }
  return new ModelRegistry(detectors);
}
