import type { ModelDescription } from '../../model-description.js';
import { ModelRefused } from '../../model-refused.js';
import type { FileDetector, InferenceSettings, LoadedModel } from '../../model-repository.js';
import type { PostprocessOptions, ServedModel } from '../../types.js';
import type { OnnxSessionPool } from './onnx-session-pool.js';

/** The fields every ONNX Runtime model has alike, whatever its role and family. */
export type ServedFields = Pick<ServedModel, 'name' | 'role' | 'kind' | 'family' | 'runtime' | 'device' | 'aliases' | 'capacity' | 'dispose'> & Pick<FileDetector, 'settings'>;

/** A model file's sessions, opened by the one loader (onnx-detector.ts), as a family's loader gets them. */
export interface OpenedOnnxModel {
  readonly modelPath: string;
  readonly description: ModelDescription;
  readonly settings: InferenceSettings;
  readonly opened: OnnxSessionPool;
  /** What the model is besides its stages: name, role, kind, family, device, capacity, how it is let go. */
  readonly served: ServedFields;
}

/**
 * What the families of one kind of output (boxes, a face detector's outputs, …) share of loading:
 * the server-wide settings as the family takes them, and the rest of loading once the sessions are
 * open — reading what the file says, the warm-up run of every session, the stages. `Reader` is
 * what tells one family of the kind from another (its outputs' reader). Every reason not to serve
 * the model is thrown. A family (families/family.ts) brings one.
 */
export interface OnnxFamilyLoader<Reader, Model extends LoadedModel> {
  /** What the model file says that refuses it before any session is opened (an object detector's metadata). */
  inspect?(modelPath: string): Promise<void>;
  defaults?(defaults: InferenceSettings, reader: Reader): InferenceSettings;
  load(model: OpenedOnnxModel, reader: Reader): Promise<Model>;
}

/** The most detections one image may have: the caller's limit, lowered by the model's configuration file. */
export function detectionLimit(options: PostprocessOptions, description: ModelDescription): number {
  return Math.min(options.maxDetections, description.maxDetections ?? options.maxDetections);
}

/**
 * Runs `load`, which opens the model's sessions and hands them to `keep`: any failure closes what was
 * opened and refuses the model with the reason (ours, or ONNX Runtime's own words: a corrupt file, an
 * unsupported operator).
 */
export async function loadOrRefuse<T>(modelPath: string, load: (keep: (pool: OnnxSessionPool) => OnnxSessionPool) => Promise<T>): Promise<T> {
  let pool: OnnxSessionPool | undefined;
  try {
    return await load((opened) => (pool = opened));
  } catch (error) {
    await pool?.close();
    throw new ModelRefused(modelPath, (error as Error).message);
  }
}
