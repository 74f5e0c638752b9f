import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * The optional sidecar beside a model file (`yolo11n.onnx` → `yolo11n.json`), as in Triton's
 * model repository: it overrides what would otherwise be detected from the model itself.
 */
export interface ModelDescription {
  /** Family module that reads the outputs (see families/index.ts). */
  readonly family?: string;
  /** Square input side in pixels, for models whose input shape is dynamic. */
  readonly inputSize?: number;
  /** Class names in output order; COCO-80 when absent. */
  readonly labels?: readonly string[];
}

export function sidecarPath(modelPath: string): string {
  return path.join(path.dirname(modelPath), `${path.basename(modelPath, path.extname(modelPath))}.json`);
}

export async function readModelDescription(modelPath: string): Promise<ModelDescription> {
  const file = sidecarPath(modelPath);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${file}: expected a JSON object`);
  const { family, inputSize, labels } = parsed as Record<string, unknown>;
  if (family !== undefined && typeof family !== 'string') throw new Error(`${file}: "family" must be a string`);
  if (inputSize !== undefined && !(Number.isInteger(inputSize) && (inputSize as number) > 0)) {
    throw new Error(`${file}: "inputSize" must be a positive integer`);
  }
  if (labels !== undefined && !(Array.isArray(labels) && labels.every((label) => typeof label === 'string'))) {
    throw new Error(`${file}: "labels" must be an array of strings`);
  }
  return { family, inputSize: inputSize as number | undefined, labels: labels as string[] | undefined };
}
