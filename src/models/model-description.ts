import fs from 'node:fs';
import fsPromises from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { packageRoot } from '../package-root.js';
import { type InferenceSettings, sidecarPath } from './model-repository.js';
import type { ModelRole } from './model-roles.js';

/**
 * The optional configuration beside a model file (`yolo11n.onnx` → `yolo11n.json`), as in
 * Triton's model repository: it overrides what would otherwise be read from the model file
 * itself (its metadata and shapes) and the server-wide inference settings. Its schema is
 * schemas/model-description.json.
 */
export interface ModelDescription {
  /** Family module that reads the outputs (families/index.ts FAMILIES); absent: read from the outputs' names and shapes. */
  readonly family?: string;
  /** What the model does in a task's pipeline; absent: its family's role. */
  readonly role?: ModelRole;
  /** What the model finds or makes (model-roles.ts MODEL_KINDS, or a kind of its own): a task's step takes a model of its role and kind. Absent: its family's kind. */
  readonly kind?: string;
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
  /** At most this many detections per image from this model (DETECTD_MAX_DETECTIONS still bounds it). */
  readonly maxDetections?: number;
  /** Other names the model answers to (e.g. CodeProject.AI's `ipcam-general`). */
  readonly aliases?: readonly string[];
}

const SCHEMA_FILE = path.join(packageRoot(), 'schemas', 'model-description.json');

interface DescriptionSchema {
  readonly schema: { properties: Record<string, { description: string }> };
  readonly validate: ValidateFunction<ModelDescription>;
}

let compiled: DescriptionSchema | undefined;

/** The schema, read and compiled when a model's configuration file is first checked, not when this module is imported (most `detectd` commands never check one). */
function descriptionSchema(): DescriptionSchema {
  if (!compiled) {
    const schema = JSON.parse(fs.readFileSync(SCHEMA_FILE, 'utf8')) as DescriptionSchema['schema'];
    compiled = { schema, validate: new Ajv2020({ strict: true }).compile<ModelDescription>(schema) };
  }
  return compiled;
}

/** One schema violation as a sentence that names the setting and what it must be. */
function problemOf(error: ErrorObject | undefined): string {
  const { schema } = descriptionSchema();
  if (error?.keyword === 'additionalProperties') {
    return `unknown setting "${(error.params as { additionalProperty: string }).additionalProperty}" (known: ${Object.keys(schema.properties).join(', ')})`;
  }
  if (!error || error.instancePath === '') return 'expected a JSON object';
  const setting = error.instancePath.split('/')[1];
  return `"${setting}" ${error.message ?? 'is invalid'}: ${schema.properties[setting].description}`;
}

/** Reads and checks the model's configuration file; `{}` when there is none. */
export async function readModelDescription(modelPath: string): Promise<ModelDescription> {
  const file = sidecarPath(modelPath);
  let text: string;
  try {
    text = await fsPromises.readFile(file, 'utf8');
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
  const { validate } = descriptionSchema();
  if (!validate(parsed)) throw new Error(`${file}: ${problemOf(validate.errors?.[0])}`);
  return parsed;
}

/** The inference settings of one model: its configuration file's, else the runtime's defaults. */
export function settingsOf(description: ModelDescription, defaults: InferenceSettings): InferenceSettings {
  return {
    threads: description.threads ?? defaults.threads,
    concurrency: description.concurrency ?? defaults.concurrency,
    nmsIou: description.nmsIou ?? defaults.nmsIou,
  };
}
