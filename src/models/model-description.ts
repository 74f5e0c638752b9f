import fs from 'node:fs/promises';
import path from 'node:path';
import { modelNameOf } from './model-repository.js';

/**
 * The optional configuration beside a model file (`yolo11n.onnx` → `yolo11n.json`), as in
 * Triton's model repository: it overrides what would otherwise be read from the model file
 * itself (its metadata and shapes) and the server-wide inference settings.
 */
export interface ModelDescription {
  /** Family module that reads the outputs (see families/index.ts). */
  readonly family?: string;
  /** Square input side in pixels, for models whose input shape is dynamic. */
  readonly inputSize?: number;
  /** Class names in output order; else the model's metadata `names`; else COCO-80. */
  readonly labels?: readonly string[];
  /** Parent category of labels (`{"forklift": "vehicle"}`); COCO labels have theirs, others default to "object". */
  readonly parents?: Readonly<Record<string, string>>;
  /** ONNX Runtime intra-op threads for this model (else DETECTD_INFERENCE_THREADS). */
  readonly threads?: number;
  /** Runs in flight at once on this model (else DETECTD_INFERENCE_CONCURRENCY). */
  readonly concurrency?: number;
  /** NMS IoU for this model (else DETECTD_NMS_IOU). */
  readonly nmsIou?: number;
}

const KEYS = ['family', 'inputSize', 'labels', 'parents', 'threads', 'concurrency', 'nmsIou'];

export function sidecarPath(modelPath: string): string {
  return path.join(path.dirname(modelPath), `${modelNameOf(modelPath)}.json`);
}

const isInteger = (value: unknown, min: number, max: number) => Number.isInteger(value) && (value as number) >= min && (value as number) <= max;

/** Reads and checks the model's configuration file; `{}` when there is none. */
export async function readModelDescription(modelPath: string): Promise<ModelDescription> {
  const file = sidecarPath(modelPath);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${file}: expected a JSON object`);
  const fields = parsed as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !KEYS.includes(key));
  if (unknown.length > 0) throw new Error(`${file}: unknown setting ${unknown.map((key) => `"${key}"`).join(', ')} (known: ${KEYS.join(', ')})`);
  const { family, inputSize, labels, parents, threads, concurrency, nmsIou } = fields;
  const check = (ok: boolean, message: string) => {
    if (!ok) throw new Error(`${file}: ${message}`);
  };
  check(family === undefined || typeof family === 'string', '"family" must be a string');
  check(inputSize === undefined || isInteger(inputSize, 1, 100_000), '"inputSize" must be a positive integer');
  check(labels === undefined || (Array.isArray(labels) && labels.length > 0 && labels.every((label) => typeof label === 'string')), '"labels" must be a non-empty array of strings');
  check(
    parents === undefined || (typeof parents === 'object' && parents !== null && !Array.isArray(parents) && Object.values(parents).every((parent) => typeof parent === 'string')),
    '"parents" must be an object of label → parent category strings',
  );
  check(threads === undefined || isInteger(threads, 1, 256), '"threads" must be an integer in [1, 256]');
  check(concurrency === undefined || isInteger(concurrency, 1, 64), '"concurrency" must be an integer in [1, 64]');
  check(nmsIou === undefined || (typeof nmsIou === 'number' && nmsIou >= 0 && nmsIou <= 1), '"nmsIou" must be a number in [0, 1]');
  return fields as ModelDescription;
}
